#include "boxed_call/program.h"

#include <sstream>

#include "harness/fuzz_target.h"
#include "oracle/actions/action_codec.h"
#include "oracle/actions/names.h"

namespace dispatch::fuzz::boxed_call {

Program decode(const uint8_t* data, size_t size) {
  std::vector<Action> all = oracle::decodeActions(data, size, oracle::kBoxedCallWeights);
  Program p;
  const auto prologue = static_cast<std::ptrdiff_t>(oracle::kBoxedCallWeights.num_ops);
  p.schemas.assign(all.begin(), all.begin() + prologue);
  p.actions.assign(all.begin() + prologue, all.end());
  p.op_labels = oracle::declaredOpLabels(p.schemas);
  return p;
}

std::string describe(const Program& p, const Action& a) { return oracle::describe(a, p.op_labels); }

void printProgram(std::ostream& out, const Program& p) {
  std::vector<Action> all = p.schemas;
  all.insert(all.end(), p.actions.begin(), p.actions.end());
  oracle::printTrace(out, all);
}

namespace {

[[noreturn]] void schemaBug(const Program& p, int op, const std::string& what, const std::string& details) {
  std::ostringstream out;
  out << "schema of op" << op << " (before both flavours): " << details << "\nprogram:\n";
  printProgram(out, p);
  reportBug(kTarget, what, out.str());
}

OpState resolveSchema(const Program& p, int op_index, const SchemaDecl& spec) {
  OpState st;
  st.text = oracle::schemaText(op_index, spec);
  FunctionSchema built{oracle::declaredOpName(op_index, spec), {}, spec.returns};
  for (size_t i = 0; i < spec.args.size(); ++i) built.arguments.push_back({"a" + std::to_string(i), spec.args[i]});
  std::optional<FunctionSchema> parsed;
  try {
    parsed = parseSchema(st.text, kNamespace);
  } catch (const SchemaError&) {
    st.text_error = Outcome::Schema;
  } catch (const std::exception& e) {
    schemaBug(p, op_index, "parseSchema throws something other than SchemaError", quote(st.text) + ": " + e.what());
  }
  if (parsed) {
    const std::string printed = toString(*parsed);
    std::optional<FunctionSchema> reparsed;
    try {
      reparsed = parseSchema(printed);
    } catch (const std::exception& e) {
      schemaBug(p, op_index, "parseSchema(toString(s)) fails", quote(printed) + ": " + e.what());
    }
    if (!(*reparsed == *parsed)) {
      schemaBug(p, op_index, "schema print/parse round trip differs",
                quote(st.text) + " -> " + quote(printed) + " -> " + quote(toString(*reparsed)));
    }
    if (parsed->name.name.rfind(std::string(kNamespace) + "::", 0) != 0) {
      st.text_error = Outcome::Registration;  // the library refuses another namespace
    }
  }
  if (spec.mode == SchemaMode::Text) {
    st.schema = parsed;
    st.name = parsed ? parsed->name : built.name;
  } else {
    // Unmutated text spells the built schema (argument names included).
    if (!parsed || !(*parsed == built)) {
      schemaBug(p, op_index, "schema text does not parse to its schema",
                quote(st.text) + " parses to " + (parsed ? quote(toString(*parsed)) : std::string("an error")) +
                    ", expected " + quote(toString(built)));
    }
    st.schema = built;
    st.name = built.name;
  }
  return st;
}

}  // namespace

std::vector<OpState> resolveSchemas(const Program& p) {
  std::vector<OpState> ops;
  for (const Action& schema : p.schemas) ops.push_back(resolveSchema(p, schema.op, *schema.schema));
  return ops;
}

void printNotes(std::ostream& out, const std::vector<StepNote>& notes) {
  for (const StepNote& n : notes) {
    out << n.flavour << " " << n.step << ": ";
    if (n.error) {
      out << toString(*n.error) << ": " << n.detail.substr(0, 200) << "\n";
    } else if (n.call) {
      out << "ran " << (n.detail.empty() ? "?" : n.detail) << " with "
          << (n.detail.empty() ? std::string("?") : oracle::keySetName(n.keys)) << "\n";
    } else {
      out << "ok\n";
    }
  }
}

}  // namespace dispatch::fuzz::boxed_call
