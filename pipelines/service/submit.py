"""A study file handed to the service: parsed and checked by the same code as `kaartlab study FILE`,
so a bad file gets the same one-line error, before anything is queued or written.

`kaartlab study FILE` reads FILE with sim.spec.StudySpec.from_toml, whose messages name the file
(``study file 'x.toml' is not valid TOML: ...``, ``x.toml: arm 'a': ...``); here the text arrives in
a request, so the name it is given (an upload's file name, or ``study.toml`` when pasted) stands in
for FILE, and the message is the one the CLI prints after ``kaartlab: error: ``.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath

from sim.errors import SpecError

DEFAULT_FILENAME = "study.toml"
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def clean_filename(name: str | None) -> str:
    """The last part of an upload's file name (browsers may send a whole path), or the default."""
    if not name:
        return DEFAULT_FILENAME
    base = PureWindowsPath(PurePosixPath(str(name)).name).name.strip()
    base = "".join(c for c in base if c.isprintable())[:100]
    return base if base not in ("", ".", "..") else DEFAULT_FILENAME


def parse_study(text: bytes | str, filename: str = DEFAULT_FILENAME):
    """The StudySpec of a study file's text, or a SpecError with the CLI's own message for it.

    Mirrors StudySpec.from_toml (sim/spec.py) for text instead of a path; data files are refused
    (see ``refuse_data_files``)."""
    from pathlib import Path

    from sim.spec import StudySpec, parse_toml_text

    path = Path(clean_filename(filename))
    if isinstance(text, bytes):
        try:
            text = text.decode()
        except UnicodeDecodeError as exc:
            raise SpecError(f"study file {str(path)!r} cannot be read: {exc}") from None
    data = parse_toml_text(text, f"study file {str(path)!r}")
    try:
        refuse_data_files(data)
        return StudySpec.from_dict(data, base=Path("/nonexistent-kaartlab-service-data"),
                                   default_name=path.stem)
    except SpecError as exc:
        raise SpecError(f"{path}: {exc}") from None


def refuse_data_files(data: dict) -> None:
    """A study file given to the service names no data file (`data = {...}` or `deck = ...`): a path
    there would be read on the server, anywhere on it. Such studies run with the CLI."""
    tables = []
    if isinstance(data.get("defaults"), dict):
        tables.append(("[defaults]", data["defaults"]))
    for key in ("arm", "sweep", "search"):
        for number, raw in enumerate(data.get(key) or [] if isinstance(data.get(key), list) else [], 1):
            if isinstance(raw, dict):
                tables.append((f"{key} {raw.get('name', f'{key}{number}')!r}", raw))
    for where, table in tables:
        for key in ("data", "deck"):
            if key in table:
                raise SpecError(f"{where}: {key}: the service takes study files without data files "
                                "(a path would be read on the server); run this study with "
                                "`kaartlab study FILE`")


def check_runnable(study, workers: int | None, cluster: bool) -> None:
    """What `kaartlab study` checks before it writes anything (sim/cli.py, _execute)."""
    from pipelines.plan import check_limits

    check_limits(study, None if cluster else workers)


def valid_id(text: str) -> bool:
    """A study id is a study name (sim.spec.check_name's letters) and so one directory of the runs
    directory: no '/', no '\\', no leading '.' (so never '.' or '..')."""
    return isinstance(text, str) and bool(_ID_RE.fullmatch(text))
