"""Planted-bug canaries as patches: the patch files, the runs, the sound verdict."""
