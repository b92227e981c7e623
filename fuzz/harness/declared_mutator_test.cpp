// Unit test of the structure-aware mutator under declared schemas (boxed_call_fuzzer's
// kBoxedCallWeights: a prologue of three Schema actions, then a program): new actions are drawn
// under the prologue (their stacks fit their operator), every output decodes back to exactly the
// list it was encoded from with its three schemas first, the program operations leave the
// prologue alone and do what they say, a schema edit changes the one field it names and refits
// only the program actions that no longer spell, and a crossover keeps the first input's prologue.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

#include "harness/action_source.h"
#include "harness/prologue_mutator.h"
#include "harness/trace_mutator.h"

namespace {

using dispatch::fuzz::Actions;
using dispatch::fuzz::ActionField;
using dispatch::fuzz::ActionSource;
using dispatch::fuzz::Rng;
using dispatch::fuzz::SchemaEdit;
using dispatch::oracle::Action;
using dispatch::oracle::ActionKind;
using dispatch::oracle::decodeActions;
using dispatch::oracle::encodeActions;

const dispatch::oracle::ActionWeights& kWeights = dispatch::oracle::kBoxedCallWeights;
constexpr size_t kPrologueLength = 3;
constexpr int kRounds = 300;

struct Input {
  Actions prologue;
  Actions program;
  Actions all() const {
    Actions out = prologue;
    out.insert(out.end(), program.begin(), program.end());
    return out;
  }
};

// A decoded input from random bytes: random schemas and a program of a dozen actions or so.
Input randomInput(Rng& rng) {
  std::vector<uint8_t> bytes(rng() % 600);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  const Actions all = decodeActions(bytes.data(), bytes.size(), kWeights);
  return {Actions(all.begin(), all.begin() + kPrologueLength), Actions(all.begin() + kPrologueLength, all.end())};
}

// The bytes of the list decode back to the list: the output is whole actions, nothing lost.
bool roundTrips(const Actions& all) {
  const std::vector<uint8_t> bytes = encodeActions(all, kWeights);
  return decodeActions(bytes.data(), bytes.size(), kWeights) == all;
}

bool isPrologue(const Actions& prologue) {
  if (prologue.size() != kPrologueLength) return false;
  for (size_t op = 0; op < prologue.size(); ++op) {
    if (prologue[op].kind != ActionKind::Schema || !prologue[op].schema || prologue[op].op != static_cast<int>(op)) {
      return false;
    }
  }
  return true;
}

Actions without(Actions actions, size_t index) {
  actions.erase(actions.begin() + static_cast<std::ptrdiff_t>(index));
  return actions;
}

TEST(DeclaredMutator, DrawnActionsFitThePrologue) {
  Rng rng(11);
  std::set<ActionKind> kinds;
  for (int round = 0; round < kRounds; ++round) {
    const Input input = randomInput(rng);
    const ActionSource source(kWeights, input.prologue);
    EXPECT_EQ(source.maxProgram(), kWeights.max_actions - kPrologueLength);
    const Action any = source.any(rng);
    EXPECT_GT(kWeights.weight[static_cast<int>(any.kind)], 0);
    EXPECT_TRUE(source.spells(any));
    kinds.insert(any.kind);
    for (ActionKind kind : {ActionKind::CallBoxed, ActionKind::RedispatchBoxed, ActionKind::CallForKey,
                            ActionKind::ImplTyped, ActionKind::Drop}) {
      const int op = static_cast<int>(rng() % kPrologueLength);
      const Action drawn = source.ofKindOn(kind, op, rng);
      EXPECT_EQ(drawn.kind, kind);
      EXPECT_EQ(drawn.op, op);
      EXPECT_TRUE(source.spells(drawn)) << "round " << round;
      EXPECT_EQ(drawn.call.has_value(), dispatch::oracle::isBoxedStackCall(kind));
    }
  }
  EXPECT_EQ(kinds.size(), kWeights.pick_order.size());  // every kind the weights pick is drawn
}

TEST(DeclaredMutator, RefitRedrawsOnlyWhatNoLongerSpells) {
  Rng rng(12);
  int moved_stacks = 0;
  for (int round = 0; round < kRounds; ++round) {
    const Input input = randomInput(rng);
    const ActionSource source(kWeights, input.prologue);
    Action call = source.ofKindOn(ActionKind::CallForKey, 0, rng);
    EXPECT_FALSE(source.refit(call, rng)) << "an action that spells is left alone";
    Action moved = call;
    moved.op = 1;
    if (source.spells(moved)) continue;  // op 1 takes op 0's stack as it is
    ++moved_stacks;
    EXPECT_TRUE(source.refit(moved, rng));
    EXPECT_TRUE(source.spells(moved));
    EXPECT_EQ(moved.kind, ActionKind::CallForKey);
    EXPECT_EQ(moved.op, 1);
    EXPECT_EQ(moved.key, call.key);  // the key fits any operator
    EXPECT_EQ(moved.call->include, call.call->include);
    EXPECT_EQ(moved.call->exclude, call.call->exclude);
  }
  EXPECT_GT(moved_stacks, kRounds / 4);
}

TEST(DeclaredMutator, ProgramOperationsDoWhatTheySayAndKeepThePrologue) {
  Rng rng(13);
  for (int round = 0; round < kRounds; ++round) {
    const Input input = randomInput(rng);
    const ActionSource source(kWeights, input.prologue);
    const Actions& before = input.program;
    {
      Actions after = before;
      const auto done = dispatch::fuzz::insertAction(after, source, rng);
      ASSERT_EQ(done.has_value(), before.size() < source.maxProgram());
      if (done) {
        EXPECT_EQ(without(after, done->index), before);
        EXPECT_TRUE(source.spells(after[done->index]));
        EXPECT_TRUE(roundTrips(Input{input.prologue, after}.all()));
      }
    }
    {
      Actions after = before;
      const auto done = dispatch::fuzz::deleteAction(after, rng);
      ASSERT_EQ(done.has_value(), !before.empty());
      if (done) {
        EXPECT_EQ(after, without(before, done->index));
      }
    }
    {
      Actions after = before;
      const auto done = dispatch::fuzz::duplicateAction(after, source, rng);
      if (done) {
        EXPECT_EQ(after[done->index], before[done->source]);
        EXPECT_EQ(without(after, done->index), before);
        EXPECT_TRUE(roundTrips(Input{input.prologue, after}.all()));
      }
    }
    {
      Actions after = before;
      const auto done = dispatch::fuzz::swapNeighbours(after, rng);
      if (done) {
        EXPECT_EQ(after[done->index], before[done->index + 1]);
        EXPECT_EQ(after[done->index + 1], before[done->index]);
      }
    }
  }
}

TEST(DeclaredMutator, ChangeFieldChangesTheNamedFieldAndFitsTheSchema) {
  Rng rng(14);
  int seen[dispatch::fuzz::kNumActionFields] = {};
  int refitted_stacks = 0;
  for (int round = 0; round < kRounds * 4; ++round) {
    const Input input = randomInput(rng);
    const ActionSource source(kWeights, input.prologue);
    Actions after = input.program;
    const auto done = dispatch::fuzz::changeField(after, source, rng);
    if (!done) {
      EXPECT_EQ(after, input.program);
      continue;
    }
    ASSERT_TRUE(done->field);
    ++seen[static_cast<int>(*done->field)];
    ASSERT_EQ(after.size(), input.program.size());
    for (size_t i = 0; i < after.size(); ++i) {
      if (i != done->index) {
        EXPECT_EQ(after[i], input.program[i]);
      }
    }
    const Action& old = input.program[done->index];
    const Action& now = after[done->index];
    EXPECT_TRUE(source.spells(now)) << "round " << round;
    EXPECT_TRUE(roundTrips(Input{input.prologue, after}.all()));
    Action rest = now;  // `now` with the named field put back must be `old`
    switch (*done->field) {
      case ActionField::Operator:
        EXPECT_NE(now.op, old.op);
        rest.op = old.op;
        if (rest.call != old.call) {
          // The stack was redrawn only because the old one does not fit the new operator.
          Action old_stack_moved = old;
          old_stack_moved.op = now.op;
          EXPECT_FALSE(source.spells(old_stack_moved));
          rest.call = old.call;
          ++refitted_stacks;
        }
        EXPECT_EQ(rest, old);
        break;
      case ActionField::KernelKind:
        EXPECT_NE(now.kind, old.kind);
        EXPECT_EQ(now.op, old.op);
        EXPECT_EQ(dispatch::oracle::isImpl(now.kind), dispatch::oracle::isImpl(old.kind));
        EXPECT_EQ(dispatch::oracle::isBoxedStackCall(now.kind), dispatch::oracle::isBoxedStackCall(old.kind));
        if (old.call) {
          EXPECT_EQ(now.call, old.call);  // every boxed call kind takes the same stack
        }
        break;
      case ActionField::Key:
        rest.key = old.key;
        rest.keys = old.keys;
        rest.other = old.other;
        EXPECT_EQ(rest, old);
        break;
      case ActionField::Handle:
        rest.handle = old.handle;
        EXPECT_EQ(rest, old);
        break;
      case ActionField::Signature:
        EXPECT_NE(now.signature, old.signature);
        rest.signature = old.signature;
        EXPECT_EQ(rest, old);
        break;
      case ActionField::Stack:
        EXPECT_NE(now.call, old.call);
        rest.call = old.call;
        EXPECT_EQ(rest, old);
        break;
      case ActionField::Block:
        ADD_FAILURE() << "a declared-schema trace has no library block";
        break;
    }
  }
  // Every field but Block (library blocks are not in the declared-schema vocabulary).
  for (int field = 0; field < dispatch::fuzz::kNumActionFields; ++field) {
    if (field == static_cast<int>(ActionField::Block)) {
      EXPECT_EQ(seen[field], 0);
    } else {
      EXPECT_GT(seen[field], 0) << "field " << field << " never changed";
    }
  }
  EXPECT_GT(refitted_stacks, 0);
}

TEST(DeclaredMutator, SchemaEditChangesTheNamedFieldAndRefitsTheProgram) {
  Rng rng(15);
  int seen[4] = {};
  int refitted = 0;
  for (int round = 0; round < kRounds * 2; ++round) {
    const Input input = randomInput(rng);
    Actions prologue = input.prologue;
    Actions program = input.program;
    const auto done = dispatch::fuzz::changeSchema(prologue, program, kWeights, rng);
    if (!done) {
      EXPECT_EQ(prologue, input.prologue);
      EXPECT_EQ(program, input.program);
      continue;
    }
    ++seen[static_cast<int>(done->edit)];
    ASSERT_TRUE(isPrologue(prologue));
    EXPECT_TRUE(roundTrips(Input{prologue, program}.all())) << "round " << round;
    for (size_t op = 0; op < kPrologueLength; ++op) {
      if (op != done->op) {
        EXPECT_EQ(prologue[op], input.prologue[op]);
      }
    }
    const auto& was = *input.prologue[done->op].schema;
    auto now = *prologue[done->op].schema;
    EXPECT_NE(now, was);
    switch (done->edit) {
      case SchemaEdit::Overload: now.overload = was.overload; EXPECT_EQ(now, was); break;
      case SchemaEdit::ArgumentType: {
        ASSERT_EQ(now.args.size(), was.args.size());
        size_t differing = 0;
        for (size_t i = 0; i < now.args.size(); ++i) differing += now.args[i] != was.args[i] ? 1 : 0;
        EXPECT_EQ(differing, 1u);
        now.args = was.args;
        EXPECT_EQ(now, was);
        break;
      }
      case SchemaEdit::ReturnType: now.returns = was.returns; EXPECT_EQ(now, was); break;
      case SchemaEdit::Redraw: break;
    }
    // The program keeps its length; exactly the actions counted as refitted differ, and each of
    // them did not spell under the new prologue as it was.
    ASSERT_EQ(program.size(), input.program.size());
    const ActionSource new_source(kWeights, prologue);
    size_t differing = 0;
    for (size_t i = 0; i < program.size(); ++i) {
      if (program[i] == input.program[i]) continue;
      ++differing;
      EXPECT_FALSE(new_source.spells(input.program[i]));
      EXPECT_EQ(program[i].kind, input.program[i].kind);
      EXPECT_EQ(program[i].op, input.program[i].op);
    }
    EXPECT_EQ(differing, done->refitted);
    refitted += static_cast<int>(done->refitted);
  }
  for (int edit = 0; edit < 4; ++edit) EXPECT_GT(seen[edit], 0) << "schema edit " << edit << " never made";
  EXPECT_GT(refitted, 0);
}

// The byte-level entry point under boxed_call's weights: every output decodes with its prologue,
// a structural output re-encodes to itself and is one edit away (one action more or less, or one
// schema changed with the program's length kept).
TEST(DeclaredMutator, EveryMutatedInputDecodesWithItsPrologue) {
  Rng rng(16);
  int by_bytes = 0;
  int program_edits = 0;
  int schema_edits = 0;
  for (int round = 0; round < kRounds * 4; ++round) {
    const Input input = randomInput(rng);
    const std::vector<uint8_t> encoded = encodeActions(input.all(), kWeights);
    const size_t max_size = 640;  // fuzz/options/boxed_call_fuzzer.options
    if (encoded.size() > max_size) continue;
    std::vector<uint8_t> data(max_size);
    std::copy(encoded.begin(), encoded.end(), data.begin());
    bool bytes_called = false;
    const auto stand_in = [&](uint8_t* d, size_t size, size_t) {
      bytes_called = true;
      d[0] ^= 1;
      return size == 0 ? size_t{1} : size;
    };
    const size_t size = dispatch::fuzz::mutateTrace(kWeights, data.data(), encoded.size(), max_size,
                                                    static_cast<unsigned>(rng()), stand_in);
    ASSERT_LE(size, max_size);
    const Actions after = decodeActions(data.data(), size, kWeights);
    ASSERT_TRUE(isPrologue(Actions(after.begin(), after.begin() + kPrologueLength)));
    if (bytes_called) {
      ++by_bytes;
      continue;
    }
    EXPECT_EQ(encodeActions(after, kWeights), std::vector<uint8_t>(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(size)));
    const Actions prologue(after.begin(), after.begin() + kPrologueLength);
    const auto program_length = static_cast<long>(after.size() - kPrologueLength);
    const auto diff = program_length - static_cast<long>(input.program.size());
    if (prologue != input.prologue) {
      ++schema_edits;
      EXPECT_EQ(diff, 0);
    } else {
      ++program_edits;
      EXPECT_LE(diff < 0 ? -diff : diff, 1);
    }
  }
  EXPECT_GT(by_bytes, 0);
  EXPECT_GT(schema_edits, 0);
  EXPECT_GT(program_edits, schema_edits * 4);  // schema edits are a tenth of the structural ones
}

TEST(DeclaredMutator, CrossOverKeepsTheFirstPrologueAndFitsTheSecondsActions) {
  Rng rng(17);
  int made = 0;
  for (int round = 0; round < kRounds; ++round) {
    const Input first = randomInput(rng);
    const Input second = randomInput(rng);
    const std::vector<uint8_t> a = encodeActions(first.all(), kWeights);
    const std::vector<uint8_t> b = encodeActions(second.all(), kWeights);
    std::vector<uint8_t> out(2048);
    const size_t size = dispatch::fuzz::crossOverTraces(kWeights, a.data(), a.size(), b.data(), b.size(),
                                                        out.data(), out.size(), static_cast<unsigned>(rng()));
    if (size == 0) continue;
    ++made;
    const Actions spliced = decodeActions(out.data(), size, kWeights);
    ASSERT_TRUE(roundTrips(spliced));
    const Actions prologue(spliced.begin(), spliced.begin() + kPrologueLength);
    EXPECT_EQ(prologue, first.prologue);
    // A prefix of the first program, then the second's actions in order, each as it was or (when
    // it did not spell under the first prologue) refitted with its kind and operator.
    const Actions program(spliced.begin() + kPrologueLength, spliced.end());
    const ActionSource source(kWeights, first.prologue);
    bool explained = false;
    for (size_t cut = 0; cut <= std::min(program.size(), first.program.size()) && !explained; ++cut) {
      if (!std::equal(program.begin(), program.begin() + static_cast<std::ptrdiff_t>(cut), first.program.begin())) break;
      const size_t rest = program.size() - cut;
      for (size_t start = 0; start + rest <= second.program.size() && !explained; ++start) {
        bool fits = true;
        for (size_t i = 0; i < rest && fits; ++i) {
          const Action& from = second.program[start + i];
          const Action& got = program[cut + i];
          fits = got == from || (!source.spells(from) && got.kind == from.kind && got.op == from.op);
        }
        explained = fits && (start + rest == second.program.size() || program.size() == source.maxProgram());
      }
    }
    EXPECT_TRUE(explained) << "round " << round;
  }
  EXPECT_GT(made, kRounds / 2);
}

}  // namespace
