#pragma once
// The comparisons the seam runner (oracle/runner/seam_runner.h) makes between a system under test and
// the model, one per kind of action. Each returns a description of the disagreement, or nullopt.

#include <optional>
#include <string>

#include "oracle/model/model.h"
#include "oracle/runner/system_under_test.h"

namespace dispatch::oracle {

// Success against success, or the same kind of error.
std::optional<std::string> compareRegistration(const model::RegistrationResult& expected,
                                               const SutOutcome& real);

// The kernel and key set it ran with, or the same kind of error; with names_operator_and_key,
// the error names the operator (a NotFound error need not) and a NotImplemented error names
// the model's key in quotes (unless the key is Undefined: a call without tensors).
std::optional<std::string> compareCall(const model::CallOutcome& expected, const SutOutcome& real,
                                       const std::string& op, bool names_operator_and_key);

// compareCall's rule for a failed call's message: it names the operator (a NotFound error need
// not), and a NotImplemented error names the model's key in quotes (unless Undefined).
bool errorNamesOperatorAndKey(const model::Error& expected, const std::string& message, const std::string& op);

std::optional<std::string> compareTls(const TlsKeys& expected, const TlsKeys& real);

// Operator `op`'s printed table (nullopt: the operator does not exist) against the model's.
std::optional<std::string> compareTable(const std::string& context, const model::ModelDispatcher& model,
                                        const std::string& model_op, const std::string& sut_op,
                                        const std::optional<std::string>& real);

std::string describe(const SutOutcome& outcome);

// A call the model says runs a start-up boxed fallback (not a fallthrough).
bool reachesStartupFallback(const model::CallOutcome& outcome);

}  // namespace dispatch::oracle
