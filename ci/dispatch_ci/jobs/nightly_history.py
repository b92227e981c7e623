"""ci/tool.py nightly-history -- the nightly's crash history file: show, export, import, mark.

  ci/tool.py nightly-history show   [--history FILE]
  ci/tool.py nightly-history export DEST [--history FILE]
  ci/tool.py nightly-history import SRC  [--history FILE] [--replace]
  ci/tool.py nightly-history mark BUCKET STATUS [--note TEXT] [--history FILE]

The store (default build/nightly/history.json) is one JSON file: every failure bucket the nightly
has seen, with first/last seen, count, status and its minimised input, so a workflow cache or an
artifact can carry it from night to night: export after the night, import before the next one.
import checks the format and merges (the entry seen or fixed last wins) unless --replace.
mark sets a bucket's status by hand, e.g. `known upstream` for a bug tracked elsewhere (it is
still reported, but never fails the night) or back to `known`.
"""
import json
import shutil
from pathlib import Path

from .. import paths
from ..log import Say, UsageError
from ..nightly import history

SCRIPT = "ci/tool.py nightly-history"
DEFAULT = history.DEFAULT_STORE


def add_arguments(p):
    p.add_argument("action", choices=("show", "export", "import", "mark"))
    p.add_argument("args", nargs="*", help="export: DEST; import: SRC; mark: BUCKET STATUS")
    p.add_argument("--history", default=paths.rel(DEFAULT), help=f"the store (default {paths.rel(DEFAULT)})")
    p.add_argument("--replace", action="store_true", help="import: replace the store instead of merging")
    p.add_argument("--note", default="", help="mark: why (e.g. the upstream issue)")


def _want(args, n: int, what: str) -> list:
    if len(args.args) != n:
        raise UsageError(f"{args.action} takes {what}")
    return args.args


def run(args) -> int:
    say = Say(SCRIPT)
    store_path = Path(args.history)
    try:
        if args.action == "show":
            _want(args, 0, "no arguments")
            store = history.load(store_path)
            for e in sorted(store["buckets"].values(), key=lambda e: (history.STATUSES.index(e["status"]), e["bucket_id"])):
                print(f"{e['status']:15} {e['bucket_id']}  nights {e['count']}, {e['first_seen']} .. {e['last_seen']}"
                      + (f", fixed in {e['fixed_in']}" if e["status"] == history.FIXED else ""))
            say(f"{len(store['buckets'])} buckets in {store_path}")
        elif args.action == "export":
            (dest,) = _want(args, 1, "DEST")
            history.load(store_path)   # validates
            if not store_path.exists():
                raise history.HistoryError(f"{store_path} does not exist: nothing to export")
            Path(dest).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(store_path, dest)
            say(f"exported {store_path} -> {dest}")
        elif args.action == "import":
            (src,) = _want(args, 1, "SRC")
            if not Path(src).is_file():
                raise history.HistoryError(f"{src} does not exist")
            store = history.import_file(Path(src), store_path, args.replace)
            say(f"imported {src} into {store_path} ({'replaced' if args.replace else 'merged'}; "
                f"{len(store['buckets'])} buckets)")
        else:
            bucket, status = _want(args, 2, "BUCKET STATUS")
            if status not in history.STATUSES:
                raise UsageError(f"status must be one of: {', '.join(history.STATUSES)}")
            store = history.load(store_path)
            if bucket not in store["buckets"]:
                raise history.HistoryError(f"no bucket {bucket} in {store_path}")
            store["buckets"][bucket].update(status=status, note=args.note)
            history.save(store, store_path)
            say(f"{bucket}: {status}")
    except (history.HistoryError, json.JSONDecodeError) as e:
        say(f"ERROR: {e}")
        return 1
    return 0
