"""A family project's configuration: which file (`load.find_config`), read how (`yaml_file`,
`toml_file`), into one model (`project.MkDocsProject`), built by which generator (`dialect`,
`generator`). Nothing is imported here: `linkfix --version` and the file lookup need no YAML reader.
"""
