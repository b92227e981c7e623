"""Mutation testing of dispatch/: a seeded mutator and the job that builds and tests mutants."""
