"""Texts for the grounding tests (the reference's and the bulk path's): the chapter's pair and
its source, and random texts made of the pieces the sentence, word and number rules read."""

from __future__ import annotations

from hypothesis import strategies as st

# The chapter's pair (the sample suite's inc-0042), and a postmortem it was written from: the
# reference's sentences plus the finding that the push had passed its checks.
REFERENCE = (
    "The outage began at 02:14 UTC when a configuration push removed the read replica from the "
    "connection pool. Checkout requests queued behind a single primary and timed out for 41 "
    "minutes. The fix was a rollback of the config change; a guard has since been added to "
    "block pushes that reduce pool size below two."
)
SUMMARY_A = (
    "A bad config deploy at 02:14 UTC dropped the replica out of the pool, so all checkout "
    "traffic piled onto the primary and failed for roughly three quarters of an hour. Engineers "
    "reverted the deploy, and pushes that shrink the pool below two members are now rejected."
)
COPIED = [
    ("The outage began at 02:14 UTC when a configuration push removed the read replica from "
     "the connection pool."),
    "Checkout requests queued behind a single primary and timed out for 41 minutes.",
    "A guard has since been added to block pushes that reduce pool size below two.",
]
INVENTED = "The incident was caused by insufficient test coverage in the deployment pipeline."
SUMMARY_B = " ".join(COPIED + [INVENTED])
SOURCE = (
    "Postmortem: checkout outage.\n"
    "The outage began at 02:14 UTC when a configuration push removed the read replica from the "
    "connection pool. Checkout requests queued behind a single primary and timed out for 41 "
    "minutes. The push was covered by tests, and it passed them: the tests asserted on pool "
    "health after the change, not on pool size during it. The fix was a rollback of the config "
    "change; a guard has since been added to block pushes that reduce pool size below two."
)


TOKENS = [
    "a", "b", "the", "cat", "Cat", "CAT", "dog", "caf\u00e9", "CAF\u00c9", "stra\u00dfe", "STRASSE",
    "\u0130", "x_y", "internationalization", "INTERNATIONALIZATIONS", "abcdefghi", "abcdefgh",
    "\u65e5\u672c", "\u4e2d\u6587", "\u0661\u0662", "12", "3.5%", "02:14", "1,200", "v2",
    ".", ". ", "! ", "?", "...", '." ', ".' ", ") ", "] ", "\u2019 ", "\u201d ", "\u3002", "\uff01",
    "\uff1f", "\u300d", "\u300f", "\uff09", "\n", "\r\n", "\r", " ", "  ", "\t", "\u00a0", "\u2028",
    "\x85", "\x00", "\x01", "\x02", "\x1c", "\x1f", "#", "_", "e.g.", "Dr.", "\ud800", "\u2014",
]
texts = st.lists(st.sampled_from(TOKENS), max_size=30).map(" ".join) | st.lists(
    st.sampled_from(TOKENS), max_size=30).map("".join)
# A sentence of words no text above has, and an example (candidate, baseline, references, source).
FRESH = st.lists(st.sampled_from(["zq1", "Zq2", "zq3", "ZQ4"]), min_size=1, max_size=6).map(
    lambda ws: " ".join(ws) + ".")
examples = st.tuples(
    texts,
    texts,
    st.lists(texts, max_size=3).map(tuple),
    st.none() | texts,
)
