"""`kaartlab serve`: studies as a service (docs/service.md).

An ASGI application (FastAPI on uvicorn) over a runs directory: a form and an API that validate a
study file exactly as `kaartlab study` does, a queue kept in the runs directory (RUNS/.queue/) that
runs each study as a child `kaartlab study FILE --out RUNS/<id> --report`, live progress read from
the batch records the pipeline writes, and a page per study with its report.

- ``submit.py``: a submitted study file, parsed by the CLI's own code, and its id
- ``queue.py``: the on-disk queue and the runner that starts, stops and resumes the children
- ``progress.py``: games played, status and the live intervals of a study directory
- ``pages.py``: the HTML pages (the reports' CSS, so a study page looks like its report)
- ``app.py``: routes, access tokens, upload limits, and ``serve`` (the CLI's entry)
"""
