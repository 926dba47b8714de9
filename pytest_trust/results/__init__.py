"""What a run concludes: metrics, intervals, gates, baselines, shards."""
