"""The benchmark cases, shipped with the package, for a project without suite modules of its own:

    pytest --pyargs pytest_trust.suites -m rules --model NAME

pytest's own way to run tests an installed package carries: the argument names a package, not a path, so
the rootdir (and with it ``cassettes/`` and ``thresholds.yaml``) is the folder pytest is started in.
"""
