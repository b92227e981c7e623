"""bench/workloads/libtorch-<release>-startup.tsv.gz (PyTorch's start-up registrations, recorded
by bench/workloads/record.sh) parse, are consistent, agree with what c10 held after the load, and
bench/workloads/README.md's counts are the ones summarize.py computes from them."""
import collections
import importlib.util

import pytest

from dispatch_ci import paths

SUMMARIZE = paths.ROOT / "bench" / "workloads" / "summarize.py"
_spec = importlib.util.spec_from_file_location("workloads_summarize", SUMMARIZE)
summarize = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(summarize)

# Operators that get kernels at start-up but no def. 2.14.1's Vulkan backend registers an
# in-place hardshrink_ that native_functions.yaml does not declare (c10 creates the name).
KNOWN_IMPL_ONLY = {"1.13": set(), "2.14": {"aten::hardshrink_"}}
IMPL_KINDS = {"typed", "boxed", "fallthrough"}
FALLBACK_KINDS = {"boxed", "fallthrough", "named_not_supported"}


@pytest.fixture(scope="module", params=summarize.RELEASES)
def workload(request):
    return summarize.read_workload(request.param)


def row_problems(rows):
    """What is wrong with the rows of a recording, one string per problem."""
    problems = []
    for index, row in enumerate(rows):
        where = f"row {index} ({row['call']} {row['operator']})"
        if row["seq"] != str(index):
            problems.append(f"{where}: seq {row['seq']}, not in call order")
        if row["call"] not in summarize.CALLS:
            problems.append(f"{where}: unknown call")
        if not row["real_call_ns"].isdigit():
            problems.append(f"{where}: real_call_ns {row['real_call_ns']!r}")
        if row["call"] == "def":
            if not row["schema"].startswith(summarize.operator_name(row) + "("):
                problems.append(f"{where}: schema {row['schema']!r} does not name the operator")
            if row["key"] != "-":
                problems.append(f"{where}: a def with a key")
        elif row["call"] == "impl":
            if row["key"] == "-" or row["kind"] not in IMPL_KINDS:
                problems.append(f"{where}: key {row['key']!r} kind {row['kind']!r}")
            if (row["kind"] == "typed") != (row["cpp_signature"] != "-"):
                problems.append(f"{where}: kind {row['kind']} with cpp_signature {row['cpp_signature']!r}")
        elif row["call"] == "fallback":
            if row["operator"] != "-" or row["key"] == "-" or row["kind"] not in FALLBACK_KINDS:
                problems.append(f"{where}: key {row['key']!r} kind {row['kind']!r}")
    return problems


def undefined_impls(workload, known_impl_only):
    """Impls naming an operator no def in the load defines, beyond the known ones."""
    return sorted(set(summarize.impl_only_operators(workload)) - known_impl_only)


def twice_defined(workload):
    defs = collections.Counter(summarize.operator_name(row) for row in workload.calls("def"))
    return sorted(name for name, count in defs.items() if count > 1)


def test_rows_are_well_formed_and_in_call_order(workload):
    assert len(workload.calls("def")) > 1000 and len(workload.calls("impl")) > 10000
    assert row_problems(workload.rows) == []


def test_the_header_names_the_release_and_the_command(workload):
    assert workload.comments[0].startswith(f"# libtorch {workload.release} (Debian libtorch-dev {workload.release}.")
    assert any(f"bench/workloads/record.sh --libtorch {workload.release}" in line for line in workload.comments)


def test_every_impl_names_a_defined_operator_or_a_known_impl_only_one(workload):
    assert undefined_impls(workload, KNOWN_IMPL_ONLY[workload.release]) == []
    # A known exception that stopped occurring is stale.
    assert KNOWN_IMPL_ONLY[workload.release] <= set(summarize.impl_only_operators(workload))


def test_no_operator_is_defined_twice(workload):
    assert twice_defined(workload) == []


def test_the_recording_agrees_with_c10_after_the_load(workload):
    assert len(summarize.operators(workload)) == workload.c10_operators
    assert summarize.c10_disagreements(workload) == []
    assert workload.c10_invariant_failures == 0


def test_the_readme_counts_are_the_summary_of_the_committed_workloads():
    readme = summarize.README.read_text()
    assert summarize.readme_section(readme) == summarize.current_summary(), \
        "run bench/workloads/summarize.py --write"


def test_the_workloads_hold_no_path_of_this_checkout(workload):
    root = str(paths.ROOT)
    assert not any(root in line for line in workload.comments)
    assert not any(root in value for row in workload.rows for value in row.values())


# --- the checks fail on bad recordings --------------------------------------------------------

HEADER = "\t".join(summarize.COLUMNS)
DEF_ADD = "0\tdef\t10\taten::add\tTensor\t-\t-\t-\t-\taten::add.Tensor(Tensor self, Tensor other) -> Tensor\t-"
IMPL_ADD = "1\timpl\t10\taten::add\tTensor\tCPU\ttyped\tyes\tat::Tensor (at::Tensor const&)\t-\t-"
IMPL_MUL = "2\timpl\t10\taten::mul\tTensor\tCPU\tboxed\tno\t-\t-\t-"


def synthetic(*lines, comments=("# c10_after_load\toperators\t1", "# c10_after_load\tkernels\tCPU\t1")):
    return summarize.parse_workload("test", [*comments, HEADER, *lines])


def test_a_short_row_does_not_parse():
    with pytest.raises(ValueError):
        synthetic(DEF_ADD, "1\timpl\t10\taten::add")


def test_rows_out_of_order_or_malformed_are_problems():
    assert row_problems(synthetic(IMPL_ADD.replace("1\t", "0\t", 1)).rows) == []
    assert row_problems(synthetic(DEF_ADD, DEF_ADD).rows)
    assert row_problems(synthetic(DEF_ADD, IMPL_ADD.replace("typed", "boxed")).rows)


def test_an_impl_of_an_undefined_operator_is_caught():
    bad = synthetic(DEF_ADD, IMPL_ADD, IMPL_MUL)
    assert undefined_impls(bad, set()) == ["aten::mul.Tensor"]
    assert undefined_impls(bad, {"aten::mul.Tensor"}) == []


def test_a_twice_defined_operator_is_caught():
    assert twice_defined(synthetic(DEF_ADD, DEF_ADD)) == ["aten::add.Tensor"]


def test_a_disagreement_with_c10_is_caught():
    assert summarize.c10_disagreements(synthetic(DEF_ADD, IMPL_ADD)) == []
    assert summarize.c10_disagreements(synthetic(DEF_ADD, IMPL_ADD, IMPL_MUL)) == [("CPU", 2, 1)]


def test_keys_we_lack_are_counted_by_name():
    ours = summarize.our_key_names(summarize.KEY_TABLE.read_text())
    assert {"CPU", "AutogradCPU", "QuantizedCPU", "Autograd", "CatchAll", "Undefined"} <= ours
    odd = synthetic(DEF_ADD, IMPL_ADD.replace("\tCPU\t", "\tAutocastMPS\t"))
    assert summarize.missing_keys(odd, ours) == {"AutocastMPS": (1, 0)}
