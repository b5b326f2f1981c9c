"""The extraction stage: the input files read into Documents (links, spans, ids, page text).

`documents` picks the reader by suffix (`linkfix.formats` for markdown and HTML, the MkDocs
family's renderer for a MkDocs page) and reuses an earlier run's extraction; `worker` does the
same with the parsing in other processes; `codec` carries Documents between them as JSON.
"""
