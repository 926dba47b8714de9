# bench/ holds benchmark scripts, not tests: never collect anything here.
collect_ignore_glob = ["*"]
