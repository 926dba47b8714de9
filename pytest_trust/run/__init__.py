"""Running items: what a session runs, playing each item, concurrency."""
