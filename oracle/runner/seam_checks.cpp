#include "oracle/runner/seam_checks.h"

#include <charconv>

#include "oracle/actions/names.h"

namespace dispatch::oracle {

namespace {

std::string describe(const model::CallOutcome& o) {
  if (o.success) return "returns " + kernelResult(o.success->kernel, o.success->keys.toRaw());
  return "throws " + model::toString(*o.error);
}

}  // namespace

std::string namedKeyOutsideVocabulary(const std::string& system, const Action& a) {
  const std::string key = a.named ? a.named->key : std::string("(none)");
  if (tryParseDispatchKey(key)) {
    return system + " names " + key + " by its enum: a named-key action is for keys it lacks";
  }
  return system + " has no dispatch key " + key + " (its keys are PyTorch 1.13.1's)";
}

void checkNamedKey(const Action& a) {
  if (a.kind != ActionKind::NamedKey) return;
  if (!a.named || !registersOnNamedKey(a.named->registration)) {
    throw std::invalid_argument("a named-key action without an impl or fallback to make: " + describe(a));
  }
}

std::string kernelResult(const std::string& kernel, uint64_t raw_keys) {
  return kernel + "@" + hex(raw_keys);
}

std::optional<KernelResultParts> parseKernelResult(std::string_view result) {
  const size_t at = result.rfind("@0x");
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view digits = result.substr(at + 3);
  uint64_t keys = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), keys, 16);
  if (error != std::errc() || end != digits.data() + digits.size() || digits.empty()) return std::nullopt;
  return KernelResultParts{std::string(result.substr(0, at)), keys};
}

bool reachesStartupFallback(const model::CallOutcome& outcome) {
  constexpr std::string_view kStartupFallbackPrefix = "startup fallback for ";
  return outcome.success && outcome.success->kernel.starts_with(kStartupFallbackPrefix);
}

std::string describe(const SutOutcome& o) {
  if (!o.misreported.empty()) {
    return (o.result ? "returns " + *o.result : std::string("succeeds")) + " but reports it wrongly: " + o.misreported;
  }
  if (o.unclassified) return "throws an unclassified error: " + o.message;
  if (o.stack_misfit) return "refuses the stack: " + o.message;
  if (o.schema_refused) return "refuses the schema or signature: " + o.message;
  if (o.error) return "throws " + model::toString(*o.error) + ": " + o.message;
  return o.result ? "returns " + *o.result : std::string("succeeds");
}

std::optional<std::string> compareRegistration(const model::RegistrationResult& expected,
                                               const SutOutcome& real) {
  const bool agree = expected.ok() ? real.ok()
                                   : real.error && expected.error && *real.error == expected.error->kind;
  if (agree) return std::nullopt;
  return "registration outcome differs: system " + describe(real) + "; model " + model::toString(expected);
}

bool errorNamesOperatorAndKey(const model::Error& expected, const std::string& message, const std::string& op) {
  if (expected.kind == model::ErrorKind::NotFound) return true;
  if (message.find(op) == std::string::npos) return false;
  if (expected.kind != model::ErrorKind::NotImplemented || !expected.key || *expected.key == DispatchKey::Undefined) {
    return true;
  }
  return message.find("'" + std::string(toString(*expected.key)) + "'") != std::string::npos;
}

std::optional<std::string> compareCall(const model::CallOutcome& expected, const SutOutcome& real,
                                       const std::string& op, bool names_operator_and_key) {
  const bool agree =
      expected.success
          ? real.result && real.misreported.empty() &&
                *real.result == kernelResult(expected.success->kernel, expected.success->keys.toRaw())
          : real.error && *real.error == expected.error->kind &&
                (!names_operator_and_key || errorNamesOperatorAndKey(*expected.error, real.message, op));
  if (agree) return std::nullopt;
  return "call outcome differs: system " + describe(real) + "; model " + describe(expected);
}

std::optional<std::string> compareTls(const TlsKeys& expected, const TlsKeys& real) {
  if (expected.included == real.included && expected.excluded == real.excluded &&
      expected.unmapped == real.unmapped) {
    return std::nullopt;
  }
  return "thread-local keys differ: system included " + keySetName(real.included) + " excluded " +
         keySetName(real.excluded) + real.unmapped + "; model included " + keySetName(expected.included) +
         " excluded " + keySetName(expected.excluded) + expected.unmapped;
}

std::optional<std::string> compareTable(const std::string& context, const model::ModelDispatcher& model,
                                        const std::string& model_op, const std::string& sut_op,
                                        const std::optional<std::string>& real) {
  if (real.has_value() != model.hasOperator(model_op)) {
    return context + ": operator " + sut_op + (real ? " exists" : " is gone") +
           " in the system but not in the model";
  }
  if (!real) return std::nullopt;
  // The model's dumpComputedTable text, from its memoised row (dumpComputedTable recomputes).
  const std::string expected = model.dumpRow(model.computedRow(model_op));
  if (*real == expected) return std::nullopt;
  return context + ": dispatch table of " + sut_op + " differs.\n--- system\n" + *real + "--- model\n" +
         expected;
}

}  // namespace dispatch::oracle
