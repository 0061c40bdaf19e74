"""Value types: what a case is (inputs), what a check and an agent return (results), usage and progress events.

Plain data with validation; no judge, no I/O. Every other layer builds on these.
"""
