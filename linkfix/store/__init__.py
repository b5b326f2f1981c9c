"""The one persistent store (diskcache, inert JSON values, never executed): check results with their history, extractions, recovery facts."""
