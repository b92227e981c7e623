# cmake/random_flavours.cmake -- trimmed flavours drawn at configure time from a seed
# (-DDISPATCH_RANDOM_FLAVOURS=N -DDISPATCH_FLAVOUR_SEED=S).
#
# The generator is a 31-bit linear congruential one in math(EXPR) (64-bit integers in every
# CMake since 3.13), so a seed draws the same flavours on every machine and CMake version.
# Each flavour keeps Undefined in slot 0 and 2 .. 40 slots in all, drawn in neighbourhoods that
# real trimmed builds have: a backend with (or without) its autograd key and some of its
# quantized / sparse / nested keys, an autograd key without its backend, functionality keys
# without any backend, and now and then any runtime key.
include_guard(GLOBAL)

# _dispatch_rng_next(<state_var> <out_var> <bound>): advance the state, out = draw in [0, bound).
macro(_dispatch_rng_next state_var out_var bound)
  math(EXPR ${state_var} "(${${state_var}} * 1103515245 + 12345) % 2147483648")
  math(EXPR ${out_var} "(${${state_var}} / 65536) % (${bound})")
endmacro()

# _dispatch_pick(<state_var> <out_var> <list...>): a uniformly drawn element of the list.
macro(_dispatch_pick state_var out_var)
  set(_pick_items ${ARGN})
  list(LENGTH _pick_items _pick_count)
  _dispatch_rng_next(${state_var} _pick_index ${_pick_count})
  list(GET _pick_items ${_pick_index} ${out_var})
endmacro()

# Appends `key` to the list `slots_var` unless it is there or the list is full.
macro(_dispatch_add_slot slots_var key target)
  list(LENGTH ${slots_var} _add_count)
  if(_add_count LESS ${target} AND NOT "${key}" IN_LIST ${slots_var})
    list(APPEND ${slots_var} "${key}")
  endif()
endmacro()

# dispatch_draw_random_flavours(<count> <seed> <out_var>): out = list of "name=key,key,..."
# declarations, names rand1 .. rand<count>. Needs dispatch_read_key_table(KEYS) in scope.
function(dispatch_draw_random_flavours count seed out_var)
  if(NOT count MATCHES "^[0-9]+$" OR NOT seed MATCHES "^[0-9]+$")
    message(FATAL_ERROR "DISPATCH_RANDOM_FLAVOURS='${count}' and DISPATCH_FLAVOUR_SEED='${seed}' "
      "must be non-negative integers")
  endif()
  # Seeds up to 18 digits (a date, a time stamp) fold into the 31-bit state.
  math(EXPR _state "(${seed} % 2147483647) ^ 1431655765")
  set(_plain ${KEYS_PLAIN})
  set(_backends ${KEYS_BACKENDS})
  set(_runtime ${KEYS_RUNTIME})
  list(REMOVE_ITEM _runtime Undefined)
  set(_declarations "")
  foreach(_i RANGE 1 ${count})
    if(_i GREATER count)
      break()   # RANGE 1 0 still runs once
    endif()
    _dispatch_rng_next(_state _size 39)
    math(EXPR _target "${_size} + 2")   # 2 .. 40 slots, Undefined included
    set(_slots Undefined)
    list(LENGTH _slots _have)
    while(_have LESS _target)
      _dispatch_rng_next(_state _kind 10)
      if(_kind LESS 4)
        # A backend's neighbourhood; CPU is the most common backend of a trimmed build.
        _dispatch_rng_next(_state _cpu 3)
        if(_cpu EQUAL 0)
          set(_backend CPU)
        else()
          _dispatch_pick(_state _backend ${_backends})
        endif()
        _dispatch_add_slot(_slots "${_backend}" ${_target})
        _dispatch_rng_next(_state _with_autograd 2)
        if(_with_autograd EQUAL 0)
          _dispatch_add_slot(_slots "Autograd${_backend}" ${_target})
        endif()
        foreach(_prefix IN ITEMS Quantized Sparse NestedTensor)
          _dispatch_rng_next(_state _with 4)
          if(_with EQUAL 0)
            _dispatch_add_slot(_slots "${_prefix}${_backend}" ${_target})
          endif()
        endforeach()
      elseif(_kind EQUAL 4)
        # An autograd key without its backend.
        _dispatch_pick(_state _backend ${_backends})
        _dispatch_add_slot(_slots "Autograd${_backend}" ${_target})
      elseif(_kind LESS 9)
        # A functionality key without backends.
        _dispatch_pick(_state _key ${_plain})
        _dispatch_add_slot(_slots "${_key}" ${_target})
      else()
        _dispatch_pick(_state _key ${_runtime})
        _dispatch_add_slot(_slots "${_key}" ${_target})
      endif()
      list(LENGTH _slots _have)
    endwhile()
    list(JOIN _slots "," _joined)
    list(APPEND _declarations "rand${_i}=${_joined}")
  endforeach()
  set(${out_var} "${_declarations}" PARENT_SCOPE)
endfunction()
