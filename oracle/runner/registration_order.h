#pragma once
// Another order for a set of registrations, for the order-independence oracle (PyTorch's
// commute() idea, test/test_dispatch.py): the same registrations made in two orders must give the
// same tables. Only registrations on different lists of the dispatcher's state may change places:
// one operator's defs, one operator's kernels for one key (its catch-all ones are CompositeImplicitAutograd's) and one key's
// fallbacks each keep their own order, since there the newest wins and the order is meaning.

#include <cstddef>
#include <string>
#include <vector>

#include "oracle/actions/action.h"

namespace dispatch::oracle {

// The list of the dispatcher's state a registration action goes to ("def fz::op0", "impl fz::op1
// at CPU", "fallback at AutogradCPU", "start-up fallbacks"; a catch-all kernel goes to
// CompositeImplicitAutograd's list, as in c10); two registrations
// commute when their lists differ. Throws std::invalid_argument for an action that registers nothing.
std::string registrationList(const Action& registration);

// A permutation of 0 .. registrations.size() - 1: the lists in reverse order of their first
// registration, each list's registrations in their own order. Deterministic, so a report can be
// replayed.
std::vector<size_t> anotherOrder(const std::vector<Action>& registrations);

}  // namespace dispatch::oracle
