"""``proofcheck list``: print the statement catalogue (docs/spec.md §2) with each entry's
paper number, flag (:data:`proofcheck.frontend.registry.FLAGS`), status and readings."""
from __future__ import annotations


def register(sub) -> None:
    q = sub.add_parser(
        "list", help="print the statement catalogue",
        description="Print every statement the tool knows (built-in and from installed "
        "plugins): id, kind, paper number, flag, status and title.",
        epilog="example: python -m proofcheck list | python -m proofcheck list --where 3.2 | "
        "python -m proofcheck list --markdown")
    q.add_argument("--markdown", action="store_true",
                   help="print the catalogue as the README's Markdown table (construction, "
                   "kernel check, dependencies, admitted datasets, scope)")
    q.add_argument("--where", nargs="?", const="", metavar="ID",
                   help="print where statement ID lives (every statement without ID): its "
                   "construction module, kernel check, test file and doc page (e.g. 3.2)")
    q.set_defaults(func=cmd_list)


def cmd_list(args) -> int:
    from proofcheck.frontend.registry import FLAGS, load, markdown_table
    cat = load()
    if args.where is not None:
        return _print_where(cat, args.where)
    if args.markdown:
        print(markdown_table(cat), end="")
        return 0
    rows = [(s.id, s.kind, s.paper, s.flag, "implemented" if s.implemented else "planned", s.title)
            for s in cat]
    head = ("id", "kind", "paper no.", "flag", "status", "statement")
    w = [max(len(r[i]) for r in rows + [head]) for i in range(5)]
    for r in [head] + rows:
        print("  ".join(x.ljust(w[i]) for i, x in enumerate(r[:5])) + "  " + r[5])
    print("\nflags (how the paper number is known; edit proofcheck/frontend/registry/builtin.py if you "
          "hold the papers):")
    for f, meaning in FLAGS.items():
        print(f"  {f:<{max(map(len, FLAGS))}}  {meaning}")
    with_readings = [s for s in cat if s.readings]
    if with_readings:
        print("\nreadings (default first; select a variant with `lemma ID --reading NAME`):")
        for s in with_readings:
            print(f"  {s.id}: {s.readings[0]} (default), " + ", ".join(s.readings[1:]))
    _print_constructions()
    return 0


def _print_constructions() -> None:
    """The last section: one line per construction, ``NAME: L = <block formula>``."""
    from proofcheck.constructions.afz.theorems.constructions import CONSTRUCTIONS
    from proofcheck.constructions.causal.constructions import CAUSAL_CONSTRUCTIONS
    print("\nconstructions (select with `theorem ID --construction NAME`; the causal ones with "
          "--attention causal):")
    for spec in [*CONSTRUCTIONS.values(), *CAUSAL_CONSTRUCTIONS.values()]:
        print(f"  {spec.name}: L = {spec.blocks}  [theorems {', '.join(spec.theorems)}; "
              f"{spec.summary}]")


def _print_where(cat, sid: str) -> int:
    """``list --where [ID]``: per statement (``ID`` or every one) its id and title, then
    one line per place (:meth:`Statement.where`); paths are relative to the repository
    root, ``-`` where a statement has none.  An unknown ``ID`` raises ``BadInput``."""
    from proofcheck.frontend.registry import find
    from proofcheck.kernel.verdicts import escape
    chosen = [find(sid, cat)] if sid else cat
    for i, st in enumerate(chosen):
        print(("\n" if i else "") + f"{escape(st.id)}  {escape(st.title, 500)}")
        for label, place in st.where().items():
            print(f"  {label:<13} {escape(place) if place else '-'}")
    return 0
