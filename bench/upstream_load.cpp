// Loads libtorch and counts its operators: the start-up that a fix of OperatorEntry's table
// refresh must not slow down (bench/upstream_load.sh). Every operator and kernel libtorch has is
// registered by its static initialisers, before main runs; callgrind counts those
// (--toggle-collect on the initialisers), a wall clock the whole process.
#include <ATen/core/dispatch/Dispatcher.h>

#include <iostream>

int main() {
  std::cout << c10::Dispatcher::singleton().getAllOpNames().size() << " operators\n";
  return 0;
}
