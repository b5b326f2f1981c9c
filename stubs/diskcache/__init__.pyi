# What linkfix uses of diskcache (store/disk.py, store/cache.py), which ships no types.
from .core import Cache as Cache
from .core import Disk as Disk
