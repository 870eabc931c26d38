"""``proofcheck list``: print the statement catalogue (SPEC §2)."""
from __future__ import annotations


def register(sub) -> None:
    q = sub.add_parser(
        "list", help="print the statement catalogue",
        description="Print every statement the tool knows (built-in and from installed "
        "plugins): id, kind, paper number, flag, status and title.",
        epilog="example: python -m proofcheck list")
    q.set_defaults(func=cmd_list)


def cmd_list(args) -> int:
    from proofcheck.catalogue import load
    rows = [(s.id, s.kind, s.paper, s.flag, "implemented" if s.implemented else "planned", s.title)
            for s in load()]
    w = [max(len(r[i]) for r in rows + [("id", "kind", "paper no.", "flag", "status", "")])
         for i in range(5)]
    head = ("id", "kind", "paper no.", "flag", "status", "statement")
    for r in [head] + rows:
        print("  ".join(x.ljust(w[i]) for i, x in enumerate(r[:5])) + "  " + r[5])
    print("\nflags: confirmed = paper number known; assumed = project's guess "
          "(edit proofcheck/data/catalogue.json); project/seed = not numbered in the paper")
    return 0



