"""The service's routes (FastAPI): pages, the JSON API, access tokens and upload limits; ``serve``
starts it on uvicorn. docs/service.md describes every route."""
from __future__ import annotations

import hmac
import json
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from fastapi import Depends, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from fastapi.security import HTTPBearer

from pipelines.service import pages
from pipelines.service.progress import holder, live_intervals, played, read_manifest, stopped_intervals
from pipelines.service.queue import ACTIVE, Queue
from pipelines.service.submit import check_runnable, clean_filename, parse_study, valid_id
from sim.errors import SpecError

MAX_UPLOAD = 1 << 20  # bytes of a study file (study files are a few KiB; data files are refused)
FORM_OVERHEAD = 16 << 10  # a multipart body's boundaries and other fields
COOKIE = "kaartlab_token"
LOG_LINES = 60


@dataclass
class Config:
    runs: Path = Path("runs")
    address: str | None = None
    workers: int | None = None
    jobs: int = 1
    token: str | None = None
    read_token: bool = False
    max_upload: int = MAX_UPLOAD
    keep_ray: bool = False  # one local Ray for the server's life, every study on it (no --address)


class Refused(Exception):
    """A request the service answers with a 4xx and one line (the CLI's own line for a study file)."""

    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status, self.detail = status, detail


# -- request bodies: bounded before anything parses them ----------------------------------------------------

class LimitBody:
    """ASGI middleware: a request body larger than ``limit`` bytes is refused with 413 before the
    application sees it (by its Content-Length, or while it is read when it has none)."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            return await self._refuse(send)
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                return await self._refuse(send)
        given = False

        async def replay():
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)

    async def _refuse(self, send):
        text = json.dumps({"detail": f"request body larger than {self.limit:,} bytes: a study file may have "
                                     f"at most {self.limit - FORM_OVERHEAD:,} (kaartlab serve --max-upload)"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(text)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": text})


# -- the application ------------------------------------------------------------------------------------------

def create_app(config: Config) -> FastAPI:
    from contextlib import asynccontextmanager

    queue = Queue(config.runs, workers=config.workers, address=config.address, jobs=config.jobs)
    cluster = bool(config.address or (os.environ.get("RAY_ADDRESS") and config.workers != 0))

    @asynccontextmanager
    async def lifespan(app):
        kept = config.keep_ray and not cluster and config.workers != 0
        if kept:  # before the queue launches anything: the main thread (Ray sets signal handlers)
            queue.address = keep_local_ray(config.workers, config.jobs)
        queue.start()
        try:
            yield
        finally:
            import anyio

            await anyio.to_thread.run_sync(queue.close)
            if kept:
                from pipelines.run import stop_ray

                stop_ray()

    app = FastAPI(
        title="kaartlab", lifespan=lifespan, version=_version(),
        description="Monte Carlo balance studies for card games, as a service: queue a study file, watch its "
                    "intervals narrow, read its report (docs/service.md). Writes (submit, stop, resume) need "
                    "`Authorization: Bearer TOKEN` when the server has a token.",
        openapi_tags=[{"name": "studies", "description": "queue, watch and stop studies"}])
    app.state.queue = queue
    app.state.config = config
    app.add_middleware(LimitBody, limit=config.max_upload + FORM_OVERHEAD)
    bearer = HTTPBearer(auto_error=False, description="the token of `kaartlab serve --token-file`")
    specs = _SpecCache(queue)

    # -- access -------------------------------------------------------------------------------
    def presented(request: Request, form_token: str | None = None) -> str | None:
        auth = request.headers.get("authorization") or ""
        if auth[:7].lower() == "bearer ":
            return auth[7:].strip()
        return form_token or request.cookies.get(COOKIE)

    def allowed(request: Request, form_token: str | None = None) -> bool:
        if not config.token:
            return True
        given = presented(request, form_token)
        return bool(given) and hmac.compare_digest(given.encode(), config.token.encode())

    def need_write(request: Request, form_token: str | None = None) -> None:
        if not allowed(request, form_token):
            raise Refused(401, "this service needs its token to change anything: send "
                               "'Authorization: Bearer TOKEN' (kaartlab serve --token-file)")

    def need_read(request: Request) -> None:
        if config.read_token and not allowed(request):
            raise Refused(401, "this service needs its token to read too: send 'Authorization: Bearer TOKEN' "
                               "(kaartlab serve --read-token)")

    def user(request: Request) -> str:
        if not config.token:
            return ""
        return "logged in" if allowed(request) else ""

    @app.exception_handler(Refused)
    async def refused(request: Request, exc: Refused):
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        if _wants_html(request):
            if exc.status == 401 and request.method == "GET":
                return RedirectResponse(f"/login?next={quote(request.url.path)}", 303)
            return HTMLResponse(pages.message_page(_reason(exc.status), exc.detail, user(request)), exc.status,
                                headers=headers)
        return JSONResponse({"detail": exc.detail}, exc.status, headers=headers)

    @app.exception_handler(Exception)
    async def crashed(request: Request, exc: Exception):  # one line, never a traceback
        print(f"kaartlab serve: {request.method} {request.url.path}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return JSONResponse({"detail": f"internal error: {type(exc).__name__}"}, 500)

    # -- what a study is, for the pages and the API --------------------------------------------
    def find(id: str) -> tuple:
        if not valid_id(id):
            raise Refused(404, f"no study {id!r} in this runs directory")
        entry = queue.get(id)
        root = queue.runs / id
        if entry is None and read_manifest(root) is None:
            raise Refused(404, f"no study {id!r} in this runs directory")
        return entry, root

    def describe(id: str, detail: bool = False) -> dict:
        entry, root = find(id)
        manifest = read_manifest(root)
        spec = specs.get(id, entry, manifest is not None)
        study = (manifest or {}).get("study") or {}
        name = entry.name if entry else study.get("name", id)
        description = (spec.description if spec is not None else "") or study.get("description", "")
        games = list(dict.fromkeys(a.game for a in spec.arms)) if spec is not None else \
            list(dict.fromkeys(a.get("game") for a in study.get("arms", []) if isinstance(a, dict)))
        progress = played(root, spec)
        if entry is not None:
            status = entry.status
        elif holder(root):
            status = "running"
        else:
            status = "done" if progress.complete else "incomplete"
        report = root / "report.html"
        out = {
            "id": id, "name": name, "description": description, "games": games, "status": status,
            "source": "service" if entry else "directory",
            "priority": entry.priority if entry else 0,
            "submitted": entry.submitted if entry else None, "started": entry.started if entry else None,
            "finished": entry.finished if entry else None,
            "when": entry.submitted if entry else _mtime(root / "study.json"),
            "message": entry.message if entry else "", "returncode": entry.returncode if entry else None,
            "runs": entry.runs if entry else None, "launched": entry.launched if entry else None,
            "progress": progress.to_dict(),
            "report_url": f"/studies/{id}/report" if report.is_file() and status not in ACTIVE else None,
            "page_url": f"/studies/{id}",
        }
        if not detail:
            return out
        out["dataset"] = str(root)
        planned = {a["name"]: a["planned"] for a in progress.arms}
        if progress.stopped:
            out["intervals"] = stopped_intervals(progress.stopped)
        elif spec is not None and (progress.games or status in ACTIVE):
            key = (id, spec.fingerprint(), json.dumps(spec.to_dict(), sort_keys=True, default=str))
            out["intervals"] = live_intervals(key, spec, root, planned)
        else:
            out["intervals"] = None
        out["summary"] = None
        if out["report_url"] and (root / "summary.json").is_file():
            try:
                out["summary"] = json.loads((root / "summary.json").read_text())
            except (OSError, ValueError):
                out["summary"] = None
        out["spec"] = {"seed": spec.seed if spec else study.get("seed"),
                       "batch_size": spec.batch_size if spec else study.get("batch_size"),
                       "arms": [{"name": a.name, "describe": a.describe()} for a in spec.arms] if spec else [],
                       "filename": entry.filename if entry else None,
                       "toml": _read(queue.path(id, ".toml")) if entry else None}
        out["log"] = _tail(queue.log(id), LOG_LINES) if entry else ""
        return out

    def all_studies() -> list[dict]:
        ids = {e.id for e in queue.list()}
        try:
            ids |= {p.name for p in queue.runs.iterdir()
                    if valid_id(p.name) and (p / "study.json").is_file()}
        except OSError:
            pass
        studies = []
        for id in ids:
            try:
                studies.append(describe(id))
            except Refused:
                continue
        return sorted(studies, key=lambda s: (s["status"] not in ACTIVE, _neg(s.get("when") or "")))

    def submit(text: bytes | str, filename: str, priority: int) -> tuple[dict, bool]:
        if len(text.encode() if isinstance(text, str) else text) > config.max_upload:  # the CLI's words for a file
            raise Refused(413, f"study file {clean_filename(filename)!r} is larger than {config.max_upload:,} bytes")
        if not -1000 <= priority <= 1000:
            raise Refused(400, f"priority={priority}: expected a whole number -1000..1000")
        try:
            study = parse_study(text, filename)
            check_runnable(study, config.workers, cluster)
            if study.searches and not study.arms:
                pass  # a [[search]] plays its own rounds; the CLI runs it as any study
        except SpecError as exc:
            raise Refused(400, _one_line(exc)) from None
        if isinstance(text, bytes):
            text = text.decode()
        entry, queued = queue.submit(text, clean_filename(filename), priority, study)
        return describe(entry.id), queued

    # -- pages --------------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def home(request: Request):
        need_read(request)
        return pages.catalogue(all_studies(), user(request))

    @app.get("/submit", response_class=HTMLResponse, include_in_schema=False)
    def submit_form(request: Request):
        need_read(request)
        return pages.submit_page(user=user(request), token_needed=bool(config.token) and not allowed(request),
                                 limit=config.max_upload)

    @app.post("/submit", response_class=HTMLResponse, include_in_schema=False)
    async def submit_posted(request: Request):
        form = await request.form()
        text = str(form.get("toml") or "")
        filename = "study.toml"
        upload = form.get("file")
        if upload is not None and not isinstance(upload, str) and upload.filename:
            data = await upload.read()
            if data:
                text, filename = data, upload.filename
        token = form.get("token") or None
        try:
            priority = int(str(form.get("priority") or "0").strip() or 0)
        except ValueError:
            priority = 0
        shown = text.decode(errors="replace") if isinstance(text, bytes) else text

        def again(status: int, error: str):
            return HTMLResponse(pages.submit_page(shown, error, user(request), bool(config.token) and not allowed(request),
                                                  priority, config.max_upload), status)

        if not allowed(request, token):
            return again(401, "this service needs its token to queue a study (the Token field, or log in)")
        if not (shown.strip()):
            return again(400, "no study file: paste one or choose a file")
        try:
            study, _ = await _in_thread(submit, text, filename, priority)
        except Refused as exc:
            return again(exc.status, exc.detail)
        response = RedirectResponse(f"/studies/{study['id']}", 303)
        if token and config.token:
            _set_cookie(response, request, token)
        return response

    @app.get("/studies/{id}", response_class=HTMLResponse, include_in_schema=False)
    def study_page(id: str, request: Request):
        need_read(request)
        s = describe(id, detail=True)
        return pages.study_page(s, user(request), can_write=allowed(request) or not config.token)

    @app.get("/studies/{id}/progress", response_class=HTMLResponse, include_in_schema=False)
    def study_progress(id: str, request: Request):
        need_read(request)
        return pages.progress_fragment(describe(id, detail=True))

    @app.post("/studies/{id}/stop", include_in_schema=False)
    async def stop_page(id: str, request: Request):
        form = await request.form()
        need_write(request, form.get("token"))
        await _in_thread(_stop, id)
        return RedirectResponse(f"/studies/{id}", 303)

    @app.post("/studies/{id}/resume", include_in_schema=False)
    async def resume_page(id: str, request: Request):
        form = await request.form()
        need_write(request, form.get("token"))
        await _in_thread(_resume, id)
        return RedirectResponse(f"/studies/{id}", 303)

    @app.get("/studies/{id}/report", response_class=HTMLResponse, tags=["studies"],
             summary="A study's report (self-contained HTML)",
             responses={404: {"description": "no such study, or no report yet"}})
    def report(id: str, request: Request):
        need_read(request)
        _, root = find(id)
        path = root / "report.html"
        if not path.is_file():
            raise Refused(404, f"study {id!r} has no report yet")
        return HTMLResponse(path.read_text(encoding="utf-8"))

    @app.get("/compare", response_class=HTMLResponse, include_in_schema=False)
    def compare(request: Request, a: str = "", b: str = ""):
        need_read(request)
        studies = all_studies()
        left = describe(a, detail=True) if a else None
        right = describe(b, detail=True) if b else None
        return pages.compare_page(studies, left, right, user(request))

    @app.get("/login", response_class=HTMLResponse, include_in_schema=False)
    def login_form(request: Request, next: str = "/"):
        return pages.login_page(next_url=_local(next))

    @app.post("/login", include_in_schema=False)
    async def login(request: Request):
        form = await request.form()
        token = str(form.get("token") or "")
        target = _local(str(form.get("next") or "/"))
        if not config.token:
            return RedirectResponse(target, 303)
        if not token or not hmac.compare_digest(token.encode(), config.token.encode()):
            return HTMLResponse(pages.login_page("wrong token", next_url=target), 401)
        response = RedirectResponse(target, 303)
        _set_cookie(response, request, token)
        return response

    @app.get("/logout", include_in_schema=False)
    def logout():
        response = RedirectResponse("/", 303)
        response.delete_cookie(COOKIE)
        return response

    @app.get("/api", response_class=HTMLResponse, include_in_schema=False)
    def api_page(request: Request):
        return pages.api_page(app.openapi(), user(request), str(request.base_url).rstrip("/"))

    # -- the API ------------------------------------------------------------------------------
    def _act(id: str, act, not_ours: str) -> dict:
        """Stop or resume a study of the queue; a study the service did not queue is refused with `not_ours`."""
        entry, _ = find(id)
        if entry is None:
            raise Refused(409, f"study {id!r} was not queued by this service{not_ours}")
        try:
            act(id)
        except SpecError as exc:
            raise Refused(409, str(exc)) from None
        return describe(id)

    def _stop(id: str) -> dict:
        return _act(id, queue.stop, " (a `kaartlab study` run): stop it there")

    def _resume(id: str) -> dict:
        return _act(id, queue.resume, ": submit its study file")

    @app.post("/api/studies", status_code=201, tags=["studies"], dependencies=[Depends(bearer)],
              summary="Queue a study file",
              description="The body is the study file (TOML, as in examples/). It is checked as `kaartlab study "
                          "FILE` checks it; a bad file is a 400 whose `detail` is the CLI's one-line error. The "
                          "study's id is its name (name-2, -3, ... when that directory holds another study). "
                          "Submitting a study that is already queued or running returns it with 200; a stopped "
                          "or finished one is queued again (it resumes, or rewrites its report).",
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/toml": {"schema": {"type": "string"}},
                  "text/plain": {"schema": {"type": "string"}}}}},
              responses={200: {"description": "already queued or running"}, 400: {"description": "a bad study file"},
                         401: {"description": "token missing or wrong"}, 413: {"description": "too large"}})
    async def api_submit(request: Request, priority: int = Query(0, description="higher runs first"),
                         filename: str = Query("study.toml", description="the file's name, as errors and the "
                                               "default study name use it")):
        need_write(request)
        body = await request.body()
        study, queued = await _in_thread(submit, body, filename, priority)
        return _json(study, 201 if queued else 200)

    @app.get("/api/studies", tags=["studies"], summary="Every study: status and progress")
    def api_list(request: Request):
        need_read(request)
        return _json({"studies": all_studies()})

    @app.get("/api/studies/{id}", tags=["studies"], summary="A study: status, progress, intervals, summary.json when done",
             responses={404: {"description": "no such study"}})
    def api_study(id: str, request: Request):
        need_read(request)
        return _json(describe(id, detail=True))

    @app.post("/api/studies/{id}/stop", status_code=202, tags=["studies"], dependencies=[Depends(bearer)],
              summary="Stop a study (its finished batches are kept; resume continues it)",
              responses={404: {"description": "no such study"}, 409: {"description": "not queued or running"}})
    def api_stop(id: str, request: Request):
        need_write(request)
        return _json(_stop(id), 202)

    @app.post("/api/studies/{id}/resume", status_code=202, tags=["studies"], dependencies=[Depends(bearer)],
              summary="Queue a stopped or failed study again: it resumes where it left off",
              responses={404: {"description": "no such study"}, 409: {"description": "done, or not this service's"}})
    def api_resume(id: str, request: Request):
        need_write(request)
        return _json(_resume(id), 202)

    @app.get("/api/health", tags=["studies"], summary="The server and its queue")
    def api_health():
        entries = queue.list()
        return {"ok": True, "queued": sum(e.status == "queued" for e in entries),
                "running": sum(e.status in ("running", "stopping") for e in entries), "jobs": config.jobs,
                "runs": str(queue.runs), "address": config.address}

    return app


class _SpecCache:
    """Parsed study files and study.json's, by file and modification time."""

    def __init__(self, queue: Queue):
        self.queue, self.cache, self.lock = queue, {}, threading.Lock()

    def get(self, id: str, entry, has_manifest: bool):
        if entry is not None:
            path = self.queue.path(id, ".toml")
        elif has_manifest:
            path = self.queue.runs / id / "study.json"
        else:
            return None
        try:
            key = (str(path), path.stat().st_mtime_ns)
        except OSError:
            return None
        with self.lock:
            if key in self.cache:
                return self.cache[key]
        try:
            if entry is not None:
                spec = parse_study(path.read_bytes(), entry.filename)
            else:
                from pipelines.storage import StudyDir

                spec = StudyDir(path.parent).read_study()
        except (SpecError, OSError):
            spec = None
        with self.lock:
            if len(self.cache) > 512:
                self.cache.clear()
            self.cache[key] = spec
        return spec


def _json(data, status: int = 200) -> JSONResponse:
    return JSONResponse(_plain(data), status)


def _plain(obj):
    """JSON-safe: NaN and infinities (an interval before its second game) become null."""
    import math

    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


async def _in_thread(fn, *args):
    import anyio

    return await anyio.to_thread.run_sync(lambda: fn(*args))


def _set_cookie(response, request: Request, token: str) -> None:
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", secure=request.url.scheme == "https",
                        max_age=30 * 24 * 3600)


def _wants_html(request: Request) -> bool:
    return not request.url.path.startswith("/api") and "text/html" in request.headers.get("accept", "")


def _reason(status: int) -> str:
    return {400: "Bad request", 401: "Token needed", 404: "Not found", 409: "Not now", 413: "Too large"}.get(
        status, "Refused")


def _local(url: str) -> str:
    """Only a path of this site is a place to go after logging in."""
    return url if url.startswith("/") and not url.startswith("//") and "\\" not in url else "/"


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return " ".join(text.split("\n")) if text else type(exc).__name__


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _tail(path: Path, lines: int) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.path.getsize(path) - 32768))
            return "\n".join(f.read().decode(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _mtime(path: Path) -> str | None:
    from datetime import datetime, timezone

    try:
        return datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).isoformat(timespec="seconds")
    except OSError:
        return None


def _neg(stamp: str) -> str:
    """Newest first in an ascending sort of ISO times."""
    return "".join(chr(0x10FFFF - ord(c)) for c in stamp)


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("kaartlab")
    except metadata.PackageNotFoundError:
        return "0"


def keep_local_ray(workers: int | None, jobs: int) -> str:
    """Start the local Ray the server keeps (as `kaartlab study` starts its own: the reaper ends it
    when the server is killed) with `workers` x `jobs` CPUs (default: every core), and return its
    GCS address for the studies' `--address`: each study then joins in about a second instead of
    starting a Ray of its own."""
    import ray

    from pipelines.run import RunError, start_ray

    try:
        start_ray(workers * jobs if workers else None, None)
    except RunError as exc:
        raise SpecError(f"--keep-ray: {exc}") from None
    return ray.get_runtime_context().gcs_address


# -- `kaartlab serve` --------------------------------------------------------------------------------------

def serve(args) -> int:
    """The CLI's entry: check the options, then run uvicorn until Ctrl-C or SIGTERM (running studies
    are stopped, keep their batches and resume when the server starts again)."""
    import uvicorn

    token = None
    if args.token_file:
        try:
            token = Path(args.token_file).read_text().strip()
        except OSError as exc:
            raise SpecError(f"--token-file {args.token_file!r} cannot be read: {exc.strerror or exc}") from None
        if len(token) < 16:
            raise SpecError(f"--token-file {args.token_file!r}: the token must be at least 16 characters "
                            "(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))' > FILE`)")
    if args.read_token and not token:
        raise SpecError("--read-token needs --token-file (the token that reading then needs)")
    if args.workers is not None and args.workers == 0 and args.address:
        raise SpecError("--workers 0 plays in this process and joins no cluster: drop --address "
                        "(or give --workers N to use the cluster)")
    if not 0 < args.port < 65536:
        raise SpecError(f"--port={args.port}: expected 1..65535")
    if not token and args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"kaartlab serve: warning: listening on {args.host} without --token-file: anyone who reaches it "
              "can submit and stop studies", file=sys.stderr)
    if args.keep_ray and (args.address or args.workers == 0):
        raise SpecError("--keep-ray keeps a local Ray: it goes with neither --address (a cluster is kept "
                        "already) nor --workers 0 (no Ray)")
    config = Config(runs=Path(args.runs), address=args.address, workers=args.workers, jobs=args.jobs, token=token,
                    read_token=args.read_token, max_upload=args.max_upload, keep_ray=args.keep_ray)
    app = create_app(config)
    where = "a local Ray per study" if not args.address else f"the Ray cluster at {args.address}"
    if args.keep_ray:
        where = "one local Ray kept while the server runs"
    if args.workers == 0:
        where = "in-process (no Ray)"
    print(f"kaartlab serve: http://{args.host}:{args.port}/  runs {config.runs.resolve()}, {args.jobs} "
          f"stud{'y' if args.jobs == 1 else 'ies'} at a time on {where}; "
          + ("writes need the token" + (", reads too" if args.read_token else "") if token else "no token: anyone who "
             "reaches it can submit and stop") + "; Ctrl-C stops it", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=args.port, log_level="warning",
                                           access_log=False, proxy_headers=True, timeout_graceful_shutdown=5))
    try:
        server.run()  # uvicorn stops gracefully on Ctrl-C or SIGTERM, then raises the signal again
    except KeyboardInterrupt:
        pass
    print("kaartlab serve: stopped; the studies that were running resume when it starts again", file=sys.stderr)
    return 0
