#pragma once
// Private to oracle/actions: how a declared schema's text is spelled and mutated, and how a boxed
// stack is shaped, written once over a source of choices. The decoder draws the choices from the
// input and records them (SchemaDecl::spelling / edits, BoxedCall's shape fields), rendering
// replays the record, the encoder replays it while writing the bytes; so all three make the same
// choices in the same order. A choice is an integer in [lo, hi].

#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "oracle/actions/action.h"

namespace dispatch::oracle::spelling {

// Replays a record; with a writer (the encoder) also writes each choice.
template <class Writer>
class Replay {
 public:
  Replay(const std::vector<uint32_t>& record, Writer* writer) : record_(record), writer_(writer) {}
  uint32_t next(uint32_t lo, uint32_t hi) {
    if (cursor_ >= record_.size()) throw std::invalid_argument("schema spelling: too few choices recorded");
    const uint32_t v = record_[cursor_++];
    if (v < lo || v > hi) throw std::invalid_argument("schema spelling: a choice out of its range");
    if (writer_) writer_->integralInRange(lo, hi, v);
    return v;
  }
  bool done() const { return cursor_ == record_.size(); }

 private:
  const std::vector<uint32_t>& record_;
  Writer* writer_;
  size_t cursor_ = 0;
};

template <class Choices>
std::string spaces(Choices& c, bool loose) {
  if (!loose) return "";
  static constexpr const char* kSpaces[] = {"", " ", "  ", "\t", " \n "};
  return kSpaces[c.next(0, std::size(kSpaces) - 1)];
}

// Every choice is its own statement: the order must not depend on how a compiler orders operands.

// Valid schema text for the declaration, in one of several spellings that all parse to it.
template <class Choices>
std::string spell(Choices& c, int op, const SchemaDecl& d) {
  const bool loose = c.next(0, 1) != 0;
  const bool has_namespace = c.next(0, 3) != 0;
  std::string text = spaces(c, loose);
  text += has_namespace ? std::string(kDeclaredNamespace) + "::" : std::string();
  text += "op" + std::to_string(op) + (d.overload ? ".ov" : "");
  text += spaces(c, loose) + "(";
  for (size_t i = 0; i < d.args.size(); ++i) {
    if (i) text += spaces(c, loose) + ",";
    text += spaces(c, loose) + std::string(toString(d.args[i])) + " ";
    text += spaces(c, loose) + "a" + std::to_string(i);
  }
  text += spaces(c, loose) + ")";
  text += spaces(c, loose) + "->";
  text += spaces(c, loose);
  const bool name_return = c.next(0, 3) == 0;
  if (d.returns.size() == 1 && c.next(0, 1) != 0) {
    text += std::string(toString(d.returns[0])) + (name_return ? " out" : "");
  } else {
    text += "(";
    for (size_t i = 0; i < d.returns.size(); ++i) {
      text += (i ? "," + spaces(c, loose) : "") + std::string(toString(d.returns[i])) +
              (name_return ? " r" + std::to_string(i) : "");
    }
    text += ")";
  }
  return text + spaces(c, loose);
}

// One to three random edits: erase, insert a character or token, overwrite a byte, truncate,
// duplicate a span.
template <class Choices>
void mutate(Choices& c, std::string& text) {
  static constexpr std::string_view kAlphabet = " ()[]?,:.->_aTintfloatboolstrTensor0\t";
  static constexpr const char* kTokens[] = {"Tensor", "Tensor?", "Tensor[]", "int", "float", "bool",
                                            "str", "->", "::", "(", ")", ",", "?", "[]", "()",
                                            "int[]", "x.y", "Tensor?[]", "\x80", ""};
  const uint32_t n = c.next(1, 3);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t pos = text.empty() ? 0 : c.next(0, static_cast<uint32_t>(text.size()));
    switch (c.next(0, 5)) {
      case 0:
        if (pos < text.size()) text.erase(pos, 1);
        break;
      case 1:
        text.insert(pos, 1, kAlphabet[c.next(0, static_cast<uint32_t>(kAlphabet.size() - 1))]);
        break;
      case 2:
        if (pos < text.size()) text[pos] = static_cast<char>(c.next(0, 255));
        break;
      case 3:
        text.insert(pos, kTokens[c.next(0, std::size(kTokens) - 1)]);
        break;
      case 4:
        text.resize(pos);
        break;
      default: {
        const std::string span = text.substr(pos, c.next(0, 12));
        text.insert(pos, span);
        break;
      }
    }
  }
}

}  // namespace dispatch::oracle::spelling
