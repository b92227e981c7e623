#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz entry point. The builder runs it from the Dockerfile's WORKDIR (the
# repository) with $SRC, $WORK, $OUT, $CC, $CXX, $CFLAGS, $CXXFLAGS and $LIB_FUZZING_ENGINE set.
# The work is in fuzz/oss_fuzz_build.sh; ci/ossfuzz_check.sh runs this locally.
exec "$PWD/fuzz/oss_fuzz_build.sh"
