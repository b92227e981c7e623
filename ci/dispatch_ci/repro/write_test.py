"""Writes the regression test of one fuzz input, for ci/repro.sh:

    write(Request(target, sha1, cpp, tests_dir, source, reproduced_with, failures)) -> test name

--cpp is the output of `<target> --print-cpp <input>` (fuzz/harness/fuzz_target.h,
printInputAsCpp): its first line is "// dispatch-fuzz-cpp: actions" (one
dispatch::oracle::Action initializer per line, with describe() as a comment) or
"// dispatch-fuzz-cpp: bytes" (hex bytes).

Writes DIR/<target>_<sha1[:12]>_test.cpp:
  actions: the std::vector<Action> literally, run with dispatch::oracle::runTraceOnAllFlavours,
           expecting no disagreement and no exception (what registration_fuzzer and
           fallback_fuzzer check);
  bytes:   the input as a byte vector, run through the target's LLVMFuzzerTestOneInput (the
           target's source is compiled into the test; a failure aborts the test).
and adds `dispatch_add_test(NAME <target>_<sha1[:12]>_test ...)` to DIR/CMakeLists.txt
(created if missing). An existing test file is never overwritten (it may have been edited).
Returns the test name; bad input raises WriteError.
"""
import os
import re
from dataclasses import dataclass, field
from typing import List


class WriteError(Exception):
    pass


@dataclass
class Request:
    target: str
    sha1: str
    cpp: str          # the output of `<target> --print-cpp <input>`
    tests_dir: str
    source: str = ""
    reproduced_with: str = ""
    failure: List[str] = field(default_factory=list)

CMAKE_HEADER = """\
# fuzz/regression_tests -- one GoogleTest per input that once made a fuzz target fail.
#
# Written by ci/repro.sh: <target>_<sha1 prefix>_test.cpp replays the input whose bytes are in
# fuzz/regressions/<target>/<sha1> (which the corpus label replays as well). Tests of the
# API-sequence targets spell the decoded action trace out as C++, so they can be read and
# edited; others embed the bytes. Label unit: they run in every preset.
# Added from fuzz/CMakeLists.txt with add_subdirectory(regression_tests).
"""


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", name) if part)


def comment_block(lines):
    out = []
    for line in lines:
        for sub in str(line).splitlines() or [""]:
            out.append(("// " + sub.replace("\\", "/")).rstrip())
    return "\n".join(out)


def write(args: Request) -> str:

    if not re.fullmatch(r"[A-Za-z0-9_]+", args.target):
        raise WriteError(f"bad target name {args.target!r}")
    with open(args.cpp) as f:
        lines = f.read().splitlines()
    if not lines or not lines[0].startswith("// dispatch-fuzz-cpp: "):
        raise WriteError(f"{args.cpp}: not the output of --print-cpp (first line {lines[:1]!r})")
    kind = lines[0].split(":", 1)[1].strip()
    body = [line for line in lines[1:] if line.strip()]

    short = args.sha1[:12]
    name = f"{args.target}_{short}_test"
    regression_file = f"fuzz/regressions/{args.target}/{args.sha1}"
    header = [
        f"Regression test for {args.target}: replays {regression_file}",
        "(written by ci/repro.sh; regenerate with `ci/repro.sh " + regression_file + "`).",
    ]
    if args.source:
        header.append(f"Found as: {args.source}")
    if args.reproduced_with:
        header.append(f"Reproduced with: {args.reproduced_with}")
    if args.failure:
        header.append("Failure when it was written:")
        header.extend("  " + line for line in args.failure)

    if kind == "actions":
        header += [
            "",
            "Runs the decoded action trace on a fresh dispatcher of every flavour of the build against the",
            "reference model, as the fuzz target does. Each action is {kind, op, key (nullopt: catch-all),",
            "handle, keys, other} (oracle/actions/action.h); edit the list freely to narrow a bug down.",
        ]
        actions = "\n".join("      " + line for line in body)
        test = f"""{comment_block(header)}

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "oracle/actions/action.h"
#include "oracle/ours/our_dispatcher_runner.h"

namespace {{

using dispatch::DispatchKey;
using dispatch::oracle::Action;
using dispatch::oracle::ActionKind;

TEST({camel(args.target)}Regression, Input{short}) {{
  const std::vector<Action> actions = {{
{actions}
  }};
  std::optional<std::string> disagreement;
  ASSERT_NO_THROW(disagreement = dispatch::oracle::runTraceOnAllFlavours(actions));
  EXPECT_FALSE(disagreement.has_value()) << disagreement.value_or("");
}}

}}  // namespace
"""
        cmake_line = (f"dispatch_add_test(NAME {name} SOURCES {name}.cpp "
                      f"LIBS dispatch_fuzz_harness LABELS unit)")
    elif kind == "bytes":
        header += [
            "",
            f"Runs the input through {args.target}'s LLVMFuzzerTestOneInput (its source is compiled in);",
            "a failure aborts or trips a sanitizer, which fails the test.",
        ]
        data = "\n".join("    " + line for line in body)
        test = f"""{comment_block(header)}

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "harness/fuzz_target.h"

namespace {{

const std::vector<uint8_t> kInput = {{
{data}
}};

TEST({camel(args.target)}Regression, Input{short}) {{
  EXPECT_EQ(LLVMFuzzerTestOneInput(kInput.data(), kInput.size()), 0);
}}

}}  // namespace
"""
        cmake_line = (f"dispatch_add_test(NAME {name} SOURCES {name}.cpp "
                      f"${{CMAKE_CURRENT_SOURCE_DIR}}/../{args.target}.cpp "
                      f"LIBS dispatch_fuzz_harness LABELS unit)")
    else:
        raise WriteError(f"{args.cpp}: unknown kind {kind!r}")

    os.makedirs(args.tests_dir, exist_ok=True)
    test_path = os.path.join(args.tests_dir, name + ".cpp")
    if os.path.exists(test_path):
        # It may have been edited by hand (narrowed down, commented): never overwrite it.
        print(f"{test_path} exists: left as it is (delete it to write it again)", flush=True)
    else:
        with open(test_path, "w") as f:
            f.write(test)

    cmake_path = os.path.join(args.tests_dir, "CMakeLists.txt")
    text = CMAKE_HEADER
    if os.path.exists(cmake_path):
        with open(cmake_path) as f:
            text = f.read()
    if re.search(r"dispatch_add_test\(NAME " + re.escape(name) + r"\s", text) is None:
        if not text.endswith("\n"):
            text += "\n"
        text += "\n" + cmake_line + "\n" if text == CMAKE_HEADER else cmake_line + "\n"
        with open(cmake_path, "w") as f:
            f.write(text)
    return name
