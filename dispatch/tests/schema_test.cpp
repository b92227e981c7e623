// Operator names and schemas: printing, parsing, mismatch reasons, stack checks, dispatch bits.

#include "dispatch/schema.h"

#include <gtest/gtest.h>

#include <map>
#include <unordered_set>

namespace dispatch {
namespace {

const Tensor kCpu = makeTensor(TensorKind::Dense, BC::CPUBit, false, false, 1);

// The message of the SchemaError that parsing `text` throws ("" if it parses).
std::string parseError(std::string_view text, std::string_view default_ns = {}) {
  try {
    (void)parseSchema(text, default_ns);
  } catch (const SchemaError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(ArgTypeTest, Names) {
  EXPECT_EQ(toString(ArgType::Tensor), "Tensor");
  EXPECT_EQ(toString(ArgType::OptionalTensor), "Tensor?");
  EXPECT_EQ(toString(ArgType::TensorList), "Tensor[]");
  EXPECT_EQ(toString(ArgType::Int), "int");
  EXPECT_EQ(toString(ArgType::Float), "float");
  EXPECT_EQ(toString(ArgType::Bool), "bool");
  EXPECT_EQ(toString(ArgType::String), "str");
  EXPECT_TRUE(isTensorLike(ArgType::TensorList));
  EXPECT_FALSE(isTensorLike(ArgType::Int));
}

TEST(OperatorNameTest, PrintCompareHash) {
  const OperatorName plain{"aten::add", ""};
  const OperatorName overload{"aten::add", "Tensor"};
  EXPECT_EQ(toString(plain), "aten::add");
  EXPECT_EQ(toString(overload), "aten::add.Tensor");
  EXPECT_NE(plain, overload);
  EXPECT_TRUE(plain < overload);
  EXPECT_FALSE(overload < plain);
  EXPECT_TRUE((OperatorName{"aten::abs", "z"} < plain));
  EXPECT_EQ(std::hash<OperatorName>{}(overload), std::hash<OperatorName>{}(OperatorName{"aten::add", "Tensor"}));
  std::unordered_set<OperatorName> set{plain, overload, OperatorName{"aten::addT", "ensor"}};
  EXPECT_EQ(set.size(), 3u);
  std::map<OperatorName, int> ordered{{overload, 1}, {plain, 0}};
  EXPECT_EQ(ordered.begin()->first, plain);
}

TEST(OperatorNameTest, Parse) {
  EXPECT_EQ(parseOperatorName("aten::add.Tensor"), (OperatorName{"aten::add", "Tensor"}));
  EXPECT_EQ(parseOperatorName(" ns::op "), (OperatorName{"ns::op", ""}));
  EXPECT_EQ(parseOperatorName("op.out", "test"), (OperatorName{"test::op", "out"}));
  EXPECT_EQ(parseOperatorName("other::op", "test"), (OperatorName{"other::op", ""}));
  EXPECT_THROW(parseOperatorName("op"), SchemaError);
  EXPECT_THROW(parseOperatorName("ns::op("), SchemaError);
  EXPECT_THROW(parseOperatorName("ns::op."), SchemaError);
  EXPECT_THROW(parseOperatorName("ns::"), SchemaError);
  EXPECT_THROW(parseOperatorName(""), SchemaError);
}

TEST(FunctionSchemaTest, Print) {
  FunctionSchema s{{"ns::op", "overload"},
                   {{"self", ArgType::Tensor}, {"x", ArgType::Int}},
                   {ArgType::Tensor}};
  EXPECT_EQ(toString(s), "ns::op.overload(Tensor self, int x) -> Tensor");
  s.returns.clear();
  EXPECT_EQ(toString(s), "ns::op.overload(Tensor self, int x) -> ()");
  s.returns = {ArgType::Tensor, ArgType::Int};
  EXPECT_EQ(toString(s), "ns::op.overload(Tensor self, int x) -> (Tensor, int)");
  s.arguments.clear();
  s.name.overload_name.clear();
  EXPECT_EQ(toString(s), "ns::op() -> (Tensor, int)");
}

TEST(FunctionSchemaTest, ParseAllTypes) {
  const FunctionSchema s = parseSchema(
      "ns::f.o(Tensor a, Tensor? b, Tensor[] c, int d, float e, bool f, str g) -> Tensor");
  EXPECT_EQ(s.name, (OperatorName{"ns::f", "o"}));
  const std::vector<Argument> expected = {
      {"a", ArgType::Tensor}, {"b", ArgType::OptionalTensor}, {"c", ArgType::TensorList},
      {"d", ArgType::Int},    {"e", ArgType::Float},          {"f", ArgType::Bool},
      {"g", ArgType::String}};
  EXPECT_EQ(s.arguments, expected);
  EXPECT_EQ(s.returns, std::vector<ArgType>{ArgType::Tensor});
}

TEST(FunctionSchemaTest, ParseReturnsAndWhitespace) {
  EXPECT_EQ(parseSchema("ns::f() -> ()").returns, std::vector<ArgType>{});
  EXPECT_EQ(parseSchema("ns::f()->(Tensor,int)").returns,
            (std::vector<ArgType>{ArgType::Tensor, ArgType::Int}));
  // c10 allows named returns; the names are dropped.
  EXPECT_EQ(parseSchema("ns::f() -> (Tensor values, Tensor indices)").returns,
            (std::vector<ArgType>{ArgType::Tensor, ArgType::Tensor}));
  EXPECT_EQ(parseSchema("ns::f() -> Tensor out").returns, std::vector<ArgType>{ArgType::Tensor});
  EXPECT_EQ(parseSchema("  ns :: f . o ( Tensor  self ,int\tx )\n->  Tensor?  "),
            parseSchema("ns::f.o(Tensor self, int x) -> Tensor?"));
}

// Identifiers: letters of the whole alphabet, both cases, '_' and (after the first) digits. The
// range ends matter: a mutant that stopped the upper-case range before 'Z' survived the suite.
TEST(FunctionSchemaTest, IdentifiersUseTheWholeAlphabet) {
  const FunctionSchema s = parseSchema("Zz_ns::Zop_9.Zo(Tensor Z, int a_z) -> Tensor");
  EXPECT_EQ(s.name, (OperatorName{"Zz_ns::Zop_9", "Zo"}));
  EXPECT_EQ(parseSchema("az::AZ(Tensor zZ) -> Tensor").name, (OperatorName{"az::AZ", ""}));
  EXPECT_TRUE(contains(parseError("ns::9f(Tensor x) -> Tensor"), "position")) << "a digit cannot start a name";
  EXPECT_TRUE(contains(parseError("ns::[f(Tensor x) -> Tensor"), "position")) << "'[' follows 'Z' in ASCII";
  EXPECT_TRUE(contains(parseError("ns::{f(Tensor x) -> Tensor"), "position")) << "'{' follows 'z' in ASCII";
}

TEST(FunctionSchemaTest, DefaultNamespace) {
  EXPECT_EQ(parseSchema("f(Tensor x) -> Tensor", "myns").name, (OperatorName{"myns::f", ""}));
  EXPECT_EQ(parseSchema("other::f(Tensor x) -> Tensor", "myns").name,
            (OperatorName{"other::f", ""}));
  const std::string err = parseError("f(Tensor x) -> Tensor");
  EXPECT_TRUE(contains(err, "namespace")) << err;
  EXPECT_TRUE(contains(err, "position 0")) << err;
}

TEST(FunctionSchemaTest, RoundTrip) {
  for (const char* text : {
           "ns::op(Tensor self) -> Tensor",
           "ns::op.out(Tensor self, Tensor? other, Tensor[] list, int n, float f, bool b, str s) -> ()",
           "aten::max.dim(Tensor self, int dim, bool keepdim) -> (Tensor, Tensor)",
           "a::b() -> (Tensor, int, float, bool, str, Tensor?, Tensor[])",
       }) {
    const FunctionSchema s = parseSchema(text);
    EXPECT_EQ(toString(s), text);
    EXPECT_EQ(parseSchema(toString(s)), s);
  }
}

TEST(FunctionSchemaTest, ErrorsNameTextAndPosition) {
  struct Case {
    const char* text;
    size_t position;
    const char* what;
  };
  const Case cases[] = {
      {"ns::op(Tensor self) Tensor", 20, "expected '->'"},
      {"ns::op(Tensor self -> Tensor", 19, "expected ')'"},
      {"ns::op(Tensor) -> Tensor", 13, "argument name"},
      {"ns::op(Foo x) -> Tensor", 7, "unknown type 'Foo'"},
      {"ns::op(int? x) -> Tensor", 7, "unsupported type 'int?'"},
      {"ns::op(float[] x) -> Tensor", 7, "unsupported type 'float[]'"},
      {"ns::op(Tensor x) ->", 19, "expected a type"},
      {"ns::op(Tensor x) -> Tensor extra junk", 33, "trailing"},
      {"ns::op(Tensor x,) -> Tensor", 16, "expected a type"},
      {"ns::op.(Tensor x) -> Tensor", 7, "overload name"},
      {"ns::(Tensor x) -> Tensor", 4, "operator name"},
      {"", 0, "operator name"},
      {"ns::op", 6, "expected '('"},
  };
  for (const Case& c : cases) {
    const std::string err = parseError(c.text);
    SCOPED_TRACE(c.text);
    EXPECT_TRUE(contains(err, detail::concat("'", c.text, "'"))) << err;
    EXPECT_TRUE(contains(err, detail::concat("position ", c.position))) << err;
    EXPECT_TRUE(contains(err, c.what)) << err;
    // The caret line points at the same column.
    EXPECT_TRUE(contains(err, detail::concat("\n  ", std::string(c.position, ' '), "^"))) << err;
  }
}

FunctionSchema unnamed(std::vector<ArgType> args, std::vector<ArgType> rets) {
  FunctionSchema s;
  for (size_t i = 0; i < args.size(); ++i) s.arguments.push_back({detail::concat("_", i), args[i]});
  s.returns = std::move(rets);
  return s;
}

TEST(SchemaDifferenceTest, Messages) {
  // c10's texts and order: the def's side first, the inferred one second.
  const FunctionSchema from_def = parseSchema("ns::op(Tensor self) -> Tensor");
  EXPECT_EQ(findSchemaDifferences(from_def, unnamed({ArgType::Tensor}, {ArgType::Tensor})),
            std::nullopt);  // names are not compared
  EXPECT_EQ(
      findSchemaDifferences(from_def, unnamed({ArgType::Tensor, ArgType::Int}, {ArgType::Tensor})),
      "The number of arguments is different. 1 vs 2.");
  EXPECT_EQ(findSchemaDifferences(from_def, unnamed({ArgType::Tensor}, {})),
            "The number of returns is different. 1 vs 0");
  EXPECT_EQ(findSchemaDifferences(from_def, unnamed({ArgType::Int}, {ArgType::Tensor})),
            "Type mismatch in argument 1: Tensor vs int");
  EXPECT_EQ(findSchemaDifferences(from_def, unnamed({ArgType::Tensor}, {ArgType::OptionalTensor})),
            "Type mismatch in return 1: Tensor vs Tensor?");
  const FunctionSchema two = parseSchema("ns::op(Tensor a, Tensor b) -> (Tensor, Tensor)");
  EXPECT_EQ(findSchemaDifferences(two, unnamed({ArgType::Tensor, ArgType::Int},
                                               {ArgType::Tensor, ArgType::Tensor})),
            "Type mismatch in argument 2: Tensor vs int");
  EXPECT_EQ(findSchemaDifferences(two, unnamed({ArgType::Tensor, ArgType::Tensor},
                                               {ArgType::Tensor, ArgType::String})),
            "Type mismatch in return 2: Tensor vs str");
  // Counts are reported before types, arguments before returns (c10's order).
  EXPECT_EQ(findSchemaDifferences(from_def, unnamed({ArgType::Int}, {})),
            "The number of returns is different. 1 vs 0");
  EXPECT_EQ(findSchemaDifferences(two, unnamed({ArgType::Int, ArgType::Int}, {ArgType::String})),
            "The number of returns is different. 2 vs 1");
}

std::string stackError(const FunctionSchema& s, const Stack& stack) {
  try {
    checkStackMatchesSchema(s, stack);
  } catch (const BoxedCallError& e) {
    return e.what();
  }
  return "";
}

TEST(CheckStackTest, AcceptsMatchingTail) {
  const FunctionSchema s = parseSchema("ns::op(Tensor self, Tensor? w, int n) -> Tensor");
  EXPECT_NO_THROW(checkStackMatchesSchema(s, {Value(kCpu), Value(), Value(3)}));
  EXPECT_NO_THROW(checkStackMatchesSchema(s, {Value(kCpu), Value(kCpu), Value(3)}));
  // Only the last arguments.size() entries are the arguments.
  EXPECT_NO_THROW(checkStackMatchesSchema(s, {Value("below"), Value(kCpu), Value(), Value(3)}));
  EXPECT_NO_THROW(checkStackMatchesSchema(parseSchema("ns::op() -> ()"), {}));
}

TEST(CheckStackTest, TooFewEntries) {
  const FunctionSchema s = parseSchema("ns::op(Tensor self, int n) -> Tensor");
  const std::string err = stackError(s, {Value(3)});
  EXPECT_TRUE(contains(err, "ns::op")) << err;
  EXPECT_TRUE(contains(err, "expected 2 arguments")) << err;
  EXPECT_TRUE(contains(err, "only 1")) << err;
}

TEST(CheckStackTest, WrongKindNamesOperatorAndArgument) {
  const FunctionSchema s = parseSchema("ns::op.ov(Tensor self, Tensor? w, float alpha) -> Tensor");
  std::string err = stackError(s, {Value(kCpu), Value(), Value(1)});
  EXPECT_TRUE(contains(err, "ns::op.ov")) << err;
  EXPECT_TRUE(contains(err, "argument 2 'alpha'")) << err;
  EXPECT_TRUE(contains(err, "float")) << err;
  EXPECT_TRUE(contains(err, "Int")) << err;
  // None fits only Tensor?.
  err = stackError(s, {Value(), Value(), Value(1.0)});
  EXPECT_TRUE(contains(err, "argument 0 'self'")) << err;
  err = stackError(s, {Value(kCpu), Value(std::vector<Tensor>{}), Value(1.0)});
  EXPECT_TRUE(contains(err, "argument 1 'w'")) << err;
}

TEST(DispatchArgBitsetTest, ReversedTensorPositions) {
  // Bit i <-> argument N-1-i.
  EXPECT_EQ(dispatchArgBitset(parseSchema("ns::op() -> ()")), 0u);
  EXPECT_EQ(dispatchArgBitset(parseSchema("ns::op(Tensor a) -> ()")), 0b1u);
  EXPECT_EQ(dispatchArgBitset(parseSchema("ns::op(Tensor a, int b) -> ()")), 0b10u);
  EXPECT_EQ(dispatchArgBitset(parseSchema("ns::op(int a, Tensor b) -> ()")), 0b01u);
  EXPECT_EQ(dispatchArgBitset(parseSchema(
                "ns::op(Tensor a, int b, Tensor? c, float d, Tensor[] e, str f, bool g) -> ()")),
            0b1010100u);
}

TEST(DispatchArgBitsetTest, SixtyFourArgumentsMax) {
  FunctionSchema s{{"ns::op", ""}, {}, {}};
  for (int i = 0; i < 64; ++i) s.arguments.push_back({detail::concat("a", i), ArgType::Tensor});
  EXPECT_EQ(dispatchArgBitset(s), ~uint64_t{0});
  s.arguments.back().type = ArgType::Int;
  EXPECT_EQ(dispatchArgBitset(s), ~uint64_t{0} << 1);
  s.arguments.push_back({"extra", ArgType::Tensor});
  EXPECT_THROW((void)dispatchArgBitset(s), SchemaError);
}

}  // namespace
}  // namespace dispatch
