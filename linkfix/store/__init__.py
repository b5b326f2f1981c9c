"""The one persistent store: check results with their history, extractions, recovery facts."""
