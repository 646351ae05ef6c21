"""What a run leaves behind, below both the runner that makes it and the outputs that read it.

``model`` (``RunResult``, ``TrailResult``, the JSON summary), ``store`` (the SQLite run history) and
``output_request`` (what a run asks of its output writers). This ``__init__`` imports nothing, so taking
the result model never loads the store or the writers.
"""
