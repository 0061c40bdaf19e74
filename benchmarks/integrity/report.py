"""Tables for ``measure.py report``: pass rates on contradiction sets and balanced accuracy, before and after.

"Pass" is the check's or agent's own pass mark: a support score of at least 0.5, an agent
status of PASS. *before* re-scores each collected verdict with the unbounded mix, *bounded* with
the blend rule alone, *after* with what ships (the bounded blend and the substitution rule); the
agents' *before* is recomputed from their checks' recorded parts, their *after* is their status.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import mean

from constraint import enforce, pass_rate, read_as_wrong, readings
from measure import RULES, SHIPPED_WEIGHT, WEIGHTS, read_jsonl, support_score

PASS = 0.5


def balanced_accuracy(gold: list[int], predicted: list[int]) -> float:
    by_class: dict[int, list[int]] = defaultdict(list)
    for g, p in zip(gold, predicted):
        by_class[g].append(int(g == p))
    return mean(mean(hits) for hits in by_class.values())


def rate(values: list[bool]) -> str:
    return f"{sum(values)}/{len(values)} ({100 * sum(values) / len(values):.1f}%)" if values else "n/a"


def support_tables(rows: list[dict], limit: float) -> None:
    dev = [r for r in rows if r.get("set") == "judge-dev"]
    pairs = [r for r in rows if r.get("set") == "one-fact" and r["stage"] == "support"]
    public = [r for r in rows if r.get("set") == "public"]
    changed = [r for r in pairs if r["member"] == "changed"]
    twins = [r for r in pairs if r["member"] == "twin"]
    wrong = read_as_wrong(changed, readings())

    print(f"\nSupport check, weight {SHIPPED_WEIGHT}: pass rate (score >= {PASS})")
    print(f"{'set':34s} " + " ".join(f"{rule:>18s}" for rule in RULES))
    for name, subset in (("one fact changed (changed)", changed), ("  read as wrong by hand", wrong),
                         ("one fact changed (twin)", twins),
                         *((f"public: {s}", [r for r in public if r["source"] == s])
                           for s in sorted({r["source"] for r in public}))):
        print(f"{name:34s} " + " ".join(
            f"{rate([support_score(r, SHIPPED_WEIGHT, rule) >= PASS for r in subset]):>18s}" for rule in RULES))
    kinds = sorted({r["kind"] for r in changed})
    print("changed claims passing, by kind (" + " -> ".join(RULES) + "): " + ", ".join(
        k + " " + "->".join(str(sum(support_score(r, SHIPPED_WEIGHT, rule) >= PASS for r in changed if r["kind"] == k))
                            for rule in RULES) + f"/{sum(r['kind'] == k for r in changed)}" for k in kinds))
    print(f"substitution rule: found in {rate([bool(r.get('substitution')) for r in changed])} of the changed claims, "
          f"{rate([bool(r.get('substitution')) for r in twins])} of their twins, "
          f"{rate([bool(r.get('substitution')) for r in dev if r['gold'] == 'supported'])} of supported judge-dev "
          f"rows, {rate([bool(r.get('substitution')) for r in dev if r['gold'] != 'supported'])} of the others")
    labels = defaultdict(int)
    for r in changed:
        labels[r["label"]] += 1
    print("judge's label on the changed claims: " + ", ".join(f"{k} {v}" for k, v in sorted(labels.items())))

    if not dev:
        return
    sources = sorted({r["source"] for r in dev})
    print(f"\njudge-dev support ({len(dev)} rows), balanced accuracy at {PASS}, by weight "
          f"(changed-claim pass rate beside it)")
    print(f"{'weight':>6s} {'rule':>7s} {'pooled':>7s} {'changed pass':>14s}  " + " ".join(s.split(':')[-1][:9].rjust(9)
                                                                                          for s in sources))
    for weight in WEIGHTS:
        for rule in RULES:
            ba = balanced_accuracy([int(r["gold"] == "supported") for r in dev],
                                   [int(support_score(r, weight, rule) >= PASS) for r in dev])
            passed = [support_score(r, weight, rule) >= PASS for r in changed]
            per = [balanced_accuracy([int(r["gold"] == "supported") for r in dev if r["source"] == s],
                                     [int(support_score(r, weight, rule) >= PASS) for r in dev if r["source"] == s])
                   for s in sources]
            print(f"{weight:6.1f} {rule:>7s} {ba:7.3f} {rate(passed):>14s}  " + " ".join(f"{v:9.3f}" for v in per))

    print(f"\nLeave one source out: the weight chosen on the other sources, among weights whose pass rate on the "
          f"changed claims read as wrong is at most {limit:.0%} (a weight above it is rejected whatever its accuracy)")
    for rule in RULES:
        allowed = [w for w in WEIGHTS
                   if enforce(f"  weight {w} ({rule})",
                              *pass_rate(wrong, lambda r, w=w, rule=rule: support_score(r, w, rule) >= PASS), limit)]
        rejected = sorted(set(WEIGHTS) - set(allowed))
        if not allowed:
            print(f"  {rule}: every weight rejected by the contradiction constraint")
            continue
        gold, predicted, picks = [], [], []
        for held in sources:
            others = [s for s in sources if s != held] or [held]
            best = max(allowed, key=lambda w: (mean(
                balanced_accuracy([int(r["gold"] == "supported") for r in dev if r["source"] == s],
                                  [int(support_score(r, w, rule) >= PASS) for r in dev if r["source"] == s])
                for s in others), -abs(w - SHIPPED_WEIGHT)))
            picks.append(best)
            for r in dev:
                if r["source"] == held:
                    gold.append(int(r["gold"] == "supported"))
                    predicted.append(int(support_score(r, best, rule) >= PASS))
        print(f"  {rule}: pooled LOSO balanced accuracy {balanced_accuracy(gold, predicted):.3f}; "
              f"weights picked {sorted(set(picks))}; rejected {rejected or 'none'}")


def agent_tables(rows: list[dict]) -> None:
    for stage, title, factual in (("accuracy_agent", "AccuracyAgent with passages", "factual"),
                                  ("answer_accuracy", "AnswerAccuracyAgent with a reference", "answer_accuracy")):
        subset = [r for r in rows if r["stage"] == stage]
        if not subset:
            continue
        print(f"\n{title}: PASS rate")
        changed = [r for r in subset if r["member"] == "changed"]
        for member, members in (("changed", changed), ("  read as wrong by hand", read_as_wrong(changed, readings())),
                                ("twin", [r for r in subset if r["member"] == "twin"])):
            after = [r["status"] == "PASS" for r in members]
            before = [agent_pass_before(r, factual) for r in members]
            print(f"  {member:24s} before {rate(before):>16s}   after {rate(after):>16s}")


def agent_pass_before(row: dict, factual_name: str) -> bool:
    """The agent's status under the unbounded mix, recomputed from its checks' recorded parts."""
    checks = {c["name"]: c for c in row["checks"]}
    parts, total = 0.0, 0.0
    factual_score = None
    for name, check in checks.items():
        score = check["score"]
        details = check["details"] or {}
        if name == factual_name and "overlap" in details:           # support blend
            score = (1 - SHIPPED_WEIGHT) * details["p_supported"] + SHIPPED_WEIGHT * details["overlap"]
        elif name == factual_name and "coverage" in details:        # answer-accuracy blend (weight 0.5)
            score = 0.5 * details["p_correct"] + 0.5 * details["coverage"]
        if name == factual_name:
            factual_score = score
        if score is None:
            return False
        parts += check["weight"] * score
        total += check["weight"]
    if factual_score is not None and factual_score < PASS and factual_name in ("factual", "answer_accuracy") \
            and len(checks) > 1:
        return False  # the factual veto
    return total > 0 and parts / total >= PASS


def main(args) -> None:
    rows = read_jsonl(args.out)
    support_tables(rows, args.max_contradicted_pass)
    agent_tables(rows)
