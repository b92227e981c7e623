"""The bug benchmark (bench/bug_benchmark.sh): planted bugs x fuzz targets x seeds, time to detection."""
