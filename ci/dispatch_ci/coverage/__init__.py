"""ci/coverage.sh's reports: llvm-cov summaries per flavour and table-cell coverage."""
