"""dispatch_ci: the CI jobs of this repository (pre-merge, nightly fuzzing, replay, coverage,
canaries, OSS-Fuzz check, reproduction) and the pieces they share."""
