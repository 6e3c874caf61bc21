"""Write the bundled sample suites that `rouge-tui` opens with no arguments.

Two suites, both made up from template parts and small vocabularies (no real data):

- ``incident-summaries``: postmortem summaries, each reference with the postmortem it was
  written from (``source``: the same facts plus the ticket, version, region, nodes, who was
  paged, what was tried first, a timeline). Eight nightly builds, 2026-11-20 to 2026-11-27:
  the first seven differ only by a handful of outputs reworded each night, except eight
  examples that flip between two wordings every night (volatile), a one-night incident on
  2026-11-23 (outputs cut short, back the next night), three replicate runs on 2026-11-24
  and two outputs missing on 2026-11-22. The last night, the candidate, drifts the way real
  builds do (truncation, duplicated headers, invented closing sentences, a changed duration,
  the ticket or version copied from the source, heavier paraphrase, empty outputs, a few
  improvements), so the report says drift-down. ``inc-0042`` is the ROUGE chapter's worked
  example (Summary A every night before, B in the candidate).
- ``support-answers``: short answers to product support questions, two builds with three
  replicate runs each that differ only by sampling noise, so the report says within band.

The output is deterministic: standard library only, every random choice comes from a
``random.Random`` seeded with a fixed string, nothing depends on time or hash order, lines
are sorted by id. ``tests/test_samples.py`` regenerates into a temporary directory and
compares byte for byte, so edit this script, never the generated files.

Usage: ``python sample_suites/generate.py [--out DIR]`` (default: this script's folder).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from random import Random

Grammar = dict[str, list[str]]

SEED = "rouge-tui sample suites v1"
_SLOT = re.compile(r"\{(\^?)([a-z0-9_]+)\}")


def rng_for(*parts: object) -> Random:
    """A private random stream per purpose, so editing one part leaves the others alone.

    String seeds go through SHA-512 in ``random.seed`` (version 2), not ``hash()``, so the
    stream does not depend on PYTHONHASHSEED.
    """
    return Random(":".join([SEED, *map(str, parts)]))


# ---------------------------------------------------------------------------------------
# A tiny template grammar: each slot names a list of alternatives; a text is rendered by
# picking one alternative per slot occurrence. A reference records its picks; an output
# re-renders the same facts, keeping each of the reference's picks with probability
# `p_same` and otherwise taking a different alternative: that is what a paraphrase is here.
# ---------------------------------------------------------------------------------------


class Renderer:
    """Render slots of a grammar, recording which alternative was picked where."""

    def __init__(
        self,
        grammar: Mapping[str, Sequence[str]],
        rng: Random,
        like: Mapping[str, int] | None = None,
        p_same: float = 1.0,
        force: Mapping[str, int] | None = None,
    ) -> None:
        self.grammar = grammar
        self.rng = rng
        self.like = like or {}
        self.p_same = p_same
        self.force = force or {}
        self.picks: dict[str, int] = {}
        self._seen: dict[str, int] = {}

    def _pick(self, name: str) -> int:
        options = self.grammar[name]
        occurrence = self._seen.get(name, 0)
        self._seen[name] = occurrence + 1
        key = f"{name}#{occurrence}"
        if key in self.force:
            index = self.force[key]
        elif len(options) == 1:
            index = 0
        elif key in self.like and self.like[key] < len(options):
            previous = self.like[key]
            if self.rng.random() < self.p_same:
                index = previous
            else:
                index = self.rng.choice([i for i in range(len(options)) if i != previous])
        else:
            index = self.rng.randrange(len(options))
        self.picks[key] = index
        return index

    def render(self, template: str) -> str:
        """Expand every ``{slot}`` (``{^slot}`` capitalises the first letter)."""

        def expand(match: re.Match[str]) -> str:
            name = match.group(2)
            text = self.render(self.grammar[name][self._pick(name)])
            return text[:1].upper() + text[1:] if match.group(1) else text

        return _SLOT.sub(expand, template)


def tidy(text: str) -> str:
    """Collapse the spaces left by empty alternatives and drop empty lines."""
    lines = (re.sub(r" {2,}", " ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def word_count(text: str) -> int:
    """Words as the chapter counts them (whitespace split)."""
    return len(text.split())


def reword(text: str, rng: Random, swaps: int, synonyms: Mapping[str, Sequence[str]]) -> str:
    """Swap up to `swaps` words for synonyms, keeping punctuation and a leading capital.

    Only plain lowercase words (or a capitalised sentence start) are eligible, so UI labels
    such as "Settings > Security" and product names stay as written.
    """
    words = [
        m
        for m in re.finditer(r"[A-Za-z]+", text)
        if m.group().lower() in synonyms
        and (m.group().islower() or (m.group()[0].isupper() and m.group()[1:].islower()))
    ]
    if not words or swaps <= 0:
        return text
    chosen = sorted(rng.sample(words, min(swaps, len(words))), key=lambda m: m.start())
    out, last = [], 0
    for m in chosen:
        word = m.group()
        new = rng.choice(list(synonyms[word.lower()]))
        if word[0].isupper():
            new = new[:1].upper() + new[1:]
        out.append(text[last : m.start()])
        out.append(new)
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def hhmm(minutes: int) -> str:
    """A clock time such as 02:14 from minutes after midnight (wrapping past 24 h)."""
    minutes %= 24 * 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def duration_forms(minutes: int) -> list[str]:
    """Ways an engineer writes a duration: exact first, then rounded."""
    hours, rest = divmod(minutes, 60)
    forms = []
    if hours == 0:
        forms.append(f"{minutes} minutes")
    else:
        unit = "hour" if hours == 1 else "hours"
        rest_unit = "minute" if rest == 1 else "minutes"
        forms.append(f"{hours} {unit} {rest} {rest_unit}" if rest else f"{hours} {unit}")
        if minutes <= 150:
            forms.append(f"{minutes} minutes")
    rounded = max(5, 5 * round(minutes / 5))
    if minutes < 55:
        forms.append(f"about {rounded} minutes")
    elif minutes <= 70:
        forms.append("roughly an hour")
    else:
        half_hours = round(minutes / 30) / 2
        forms.append(f"about {half_hours:g} hours")
    return forms


# ---------------------------------------------------------------------------------------
# Incident summaries
# ---------------------------------------------------------------------------------------

SERVICES: list[tuple[str, str]] = [
    ("checkout", "checkout requests"),
    ("payments API", "payment authorizations"),
    ("login service", "logins"),
    ("search", "search queries"),
    ("notifications", "push notifications"),
    ("media service", "image uploads"),
    ("billing", "invoice runs"),
    ("orders API", "order submissions"),
    ("mobile API", "API calls from the mobile apps"),
    ("webhooks", "webhook deliveries"),
    ("reporting", "dashboard loads"),
    ("cart service", "add-to-cart calls"),
    ("inventory service", "stock lookups"),
    ("email delivery", "outbound emails"),
    ("recommendations", "recommendation requests"),
    ("GraphQL gateway", "gateway requests"),
    ("auth service", "token refreshes"),
    ("shipping quotes", "shipping quote requests"),
    ("support widget", "chat sessions"),
    ("public API", "public API requests"),
]

INCIDENT_BASE: Grammar = {
    "root": [
        "{onset} {impact} {detect} {fix} {follow}",
        "{onset} {impact}\n{detect} {fix} {follow}",
        "{onset} {impact} {detect}\n{fix}\n{follow}",
    ],
    "onset": [
        "The outage began at {time} UTC when {trigger}.",
        "At {time} UTC {trigger}.",
        "Starting at {time} UTC, {trigger}.",
        "Shortly after {time} UTC, {trigger}.",
    ],
    "impact": [
        "{^svc_req} {symptom} for {dur}.",
        "For {dur}, {svc_req} {symptom}.",
        "{^scope} of {svc_req} {symptom} for {dur}.",
        "Impact lasted {dur}: {svc_req} {symptom}.",
    ],
    "scope": ["about {pct}%", "roughly {pct}%", "close to {pct}%"],
    "detect": [
        "",
        "On-call was paged at {time2} UTC by the {alert} alert.",
        "The {alert} alert paged on-call at {time2} UTC.",
        "Detection took {detect_min} minutes because {detect_gap}.",
        "Detection was slow ({detect_min} min) — {detect_gap}.",
        "Support escalated customer reports at {time2} UTC before any alert fired.",
    ],
    "alert": ["{svc_short} error-rate", "{svc_short} latency SLO", "burn-rate", "synthetic probe"],
    "detect_gap": [
        "the error-rate alert only fires after 10 minutes above threshold",
        "the dashboards average over a 15-minute window",
        "the page went to the wrong rotation",
        "the health check kept passing throughout",
    ],
    "follow": [
        "Follow-up: {action}.",
        "Follow-ups: {action}; {action2}.",
        "{done}",
        "Follow-up ({ticket}): {action}.",
        "{done} Also: {action2}.",
    ],
    "action2": [
        "add a runbook entry for this failure mode",
        "review alert thresholds for {svc_short}",
        "add a synthetic check for {svc_short}",
        "run a game day on this scenario next quarter",
        "page the owning team directly instead of the platform rotation",
    ],
    "title_sym": ["errors", "timeouts", "outage", "degraded", "elevated 5xx"],
    "input": [
        "SEV{sev}: {^svc_short} {title_sym} ({title})",
        "SEV{sev} {^svc_short} {title_sym} after {title}",
    ],
}

# Per cause: grammar slots, plus "values" from which each incident picks one fixed fact.
CAUSES: list[dict[str, list[str] | dict[str, list[str]]]] = [
    {
        "title": ["config push", "pool config change"],
        "trigger": [
            "a configuration push removed the {replica} from the connection pool",
            "a config change dropped the {replica} out of the pool",
            "a bad config deploy took the {replica} out of rotation",
        ],
        "symptom": [
            "queued behind a single primary and timed out",
            "piled onto the primary and failed",
            "timed out waiting for a database connection",
        ],
        "fix": [
            "The fix was a rollback of the config change.",
            "We rolled back the config push at {time3} UTC.",
            "Reverting the config change restored the pool.",
        ],
        "action": [
            "block config pushes that reduce pool size below two",
            "validate pool membership in the config linter",
            "canary config pushes in one region first",
        ],
        "done": [
            "A guard now blocks pushes that shrink the pool below two members.",
            "Config pushes that reduce pool size are now rejected by the linter.",
        ],
        "values": {"replica": ["read replica", "standby replica", "second replica"]},
    },
    {
        "title": ["expired certificate", "TLS certificate expiry"],
        "trigger": [
            "the TLS certificate for {host} expired",
            "the certificate on {host} lapsed because auto-renewal had been failing silently",
            "an expired certificate on {host} broke TLS handshakes",
        ],
        "symptom": [
            "failed TLS handshakes",
            "were rejected with certificate errors",
            "failed with SSL errors",
        ],
        "fix": [
            "The fix was rotating the certificate by hand at {time3} UTC.",
            "We issued and deployed a new certificate manually.",
            "A manual renewal and an ingress reload restored traffic.",
        ],
        "action": [
            "alert 14 days before any certificate expires",
            "move {host} to automated renewal",
            "add renewal failures to the weekly ops review",
        ],
        "done": [
            "Renewal failures now page the owning team.",
            "The certificate is now renewed automatically, with expiry alerts at 14 days.",
        ],
        "values": {
            "host": [
                "api.example.com",
                "auth.example.com",
                "the {region} load balancer",
                "the internal {svc_short} endpoint",
            ],
        },
    },
    {
        "title": ["disk full on {db}", "{db} out of disk"],
        "trigger": [
            "the data volume on {db} filled up with {junk}",
            "{db} ran out of disk after {junk} grew unchecked",
            "disk usage on {db} hit 100% because of {junk}",
        ],
        "symptom": [
            "failed on every write",
            "returned 500 errors on writes",
            "had writes rejected while reads kept working",
        ],
        "fix": [
            "The fix was deleting old {junk_short} and expanding the volume.",
            "We freed space by purging {junk_short} and added 500 GB.",
            "On-call truncated {junk_short} and resized the disk at {time3} UTC.",
        ],
        "action": [
            "alert at 80% disk usage on {db}",
            "cap {junk_short} retention at seven days",
            "move {junk_short} to object storage",
        ],
        "done": [
            "Disk alerts now fire at 80% instead of 95%.",
            "Retention for {junk_short} is now capped at seven days.",
        ],
        "values": {
            "junk_pair": [
                "write-ahead log segments|WAL segments",
                "debug logs left on after the last incident|debug logs",
                "orphaned snapshot files|snapshots",
                "temporary export files|export files",
            ],
        },
    },
    {
        "title": ["slow query in {ver}", "{ver} deploy"],
        "trigger": [
            "deploy {ver} of {svc_short} shipped a query without an index on the {table} table",
            "release {ver} introduced an unindexed query against {table}",
            "a new query in {ver} scanned the full {table} table on every request",
        ],
        "symptom": ["slowed to p99 latencies above {lat} seconds", "timed out", "returned 504s"],
        "fix": [
            "The fix was a rollback to {prev}.",
            "We rolled back to {prev} at {time3} UTC.",
            "Rolling back to {prev} brought latency down within minutes.",
        ],
        "action": [
            "add a query-plan check to CI",
            "load test releases against a production-sized {table} table",
            "require an index review for new queries",
        ],
        "done": [
            "The missing index has since been added and CI now flags full table scans.",
            "Query plans for new queries are now checked in CI.",
        ],
        "values": {},
    },
    {
        "title": ["retry storm", "client retry storm"],
        "trigger": [
            "{client} retried failed calls without backoff and multiplied load on {svc_short}",
            "a retry storm from {client} overwhelmed {svc_short} after a brief network blip",
            (
                "{client} kept retrying timeouts immediately, turning a short blip into sustained "
                "overload"
            ),
        ],
        "symptom": ["failed with 503s", "were shed by the load balancer", "timed out"],
        "fix": [
            "The fix was disabling retries in {client} with a feature flag.",
            "We turned off client retries via a flag and let the queue drain.",
            "Rate limiting {client} at the gateway broke the loop at {time3} UTC.",
        ],
        "action": [
            "add exponential backoff with jitter to {client}",
            "put a circuit breaker in front of {svc_short}",
            "cap retries at three per request",
        ],
        "done": [
            "{^client} now retries with exponential backoff and jitter.",
            "A circuit breaker now trips before {svc_short} saturates.",
        ],
        "values": {
            "client": [
                "the mobile app",
                "the sync worker",
                "the partner import job",
                "the web frontend",
            ]
        },
    },
    {
        "title": ["migration lock on {table}", "schema migration"],
        "trigger": [
            "a schema migration on the {table} table took an exclusive lock",
            "a migration adding a column to {table} locked the table for writes",
            "an ALTER TABLE on {table} held a lock that blocked every write",
        ],
        "symptom": ["hung and then failed", "timed out on writes", "blocked behind the lock"],
        "fix": [
            "The fix was killing the migration and re-running it online with {tool}.",
            "We cancelled the migration at {time3} UTC and redid it with {tool}.",
            "Terminating the migration session released the lock.",
        ],
        "action": [
            "require online migrations for tables over 10 million rows",
            "run migrations through {tool} by default",
            "set a lock timeout on all migrations",
        ],
        "done": [
            "Migrations now run with a five-second lock timeout.",
            "Large-table migrations must now go through {tool}.",
        ],
        "values": {"tool": ["gh-ost", "pt-online-schema-change", "pgroll"]},
    },
    {
        "title": ["node pool at capacity", "autoscaler limit"],
        "trigger": [
            (
                "the autoscaler for the {pool} node pool hit its maximum of {nodes} nodes during "
                "{event}"
            ),
            "{event} pushed the {pool} pool to its node limit of {nodes}",
            "capacity ran out when {event} drove the {pool} pool to its {nodes}-node ceiling",
        ],
        "symptom": [
            "queued and timed out",
            "saw p99 latency above {lat} seconds",
            "were throttled",
        ],
        "fix": [
            "The fix was raising the node limit and adding capacity by hand.",
            "We raised the autoscaler maximum to {nodes2} at {time3} UTC.",
            "Manually scaling the {pool} pool to {nodes2} nodes cleared the backlog.",
        ],
        "action": [
            "load test before {event_short}",
            "alert when a node pool is within 10% of its limit",
            "review autoscaler limits every quarter",
        ],
        "done": [
            "Pool limits are now reviewed before {event_short}.",
            "An alert now fires when any pool reaches 90% of its maximum.",
        ],
        "values": {
            "pool": ["general", "api", "workers", "high-memory"],
            "event_pair": [
                "the Black Friday sale|sales events",
                "a marketing email to two million users|large campaigns",
                "the monthly billing run|billing runs",
                "a partner's bulk import|bulk imports",
            ],
        },
    },
    {
        "title": ["DNS change", "bad DNS record"],
        "trigger": [
            "a DNS change pointed {record} at a decommissioned load balancer",
            "a TTL change on {record} left clients resolving an old address",
            "a typo in a DNS update sent {record} to the wrong target",
        ],
        "symptom": [
            "failed to connect",
            "could not resolve or connect",
            "errored with connection refused",
        ],
        "fix": [
            "The fix was restoring the previous record; recovery followed as caches expired.",
            "We reverted the DNS change at {time3} UTC and waited out the TTL.",
            "Restoring the old record fixed it once resolvers picked it up.",
        ],
        "action": [
            "review DNS changes in pull requests",
            "lower TTLs before planned DNS moves",
            "add a synthetic check that resolves {record}",
        ],
        "done": [
            "DNS changes now go through code review.",
            "A synthetic probe now resolves {record} every minute.",
        ],
        "values": {
            "record": [
                "api.example.com",
                "cdn.example.com",
                "auth.example.com",
                "the {region} endpoint",
            ]
        },
    },
    {
        "title": ["memory leak in {ver}", "OOM loop"],
        "trigger": [
            "a memory leak in {svc_short} {ver} caused pods to be OOM-killed every few minutes",
            "{ver} of {svc_short} leaked memory until its pods were killed",
            "pods running {ver} grew past their memory limit and restarted in a loop",
        ],
        "symptom": ["failed intermittently", "returned 502s", "dropped mid-request"],
        "fix": [
            "The fix was a rollback to {prev}.",
            "We rolled back to {prev} at {time3} UTC.",
            "Rolling back to {prev} stopped the restarts.",
        ],
        "action": [
            "add a memory soak test to the release pipeline",
            "alert on pod restart rate",
            "canary new versions for at least an hour",
        ],
        "done": [
            "Releases now run a two-hour soak test.",
            "Restart-rate alerts are now in place for {svc_short}.",
        ],
        "values": {},
    },
    {
        "title": ["{region} provider outage", "upstream outage"],
        "trigger": [
            "our cloud provider had a networking outage in {region}",
            "an upstream incident in {region} took out {dep}",
            "the provider degraded in {region} and {dep} became unreachable",
        ],
        "symptom": ["failed", "timed out", "returned errors"],
        "fix": [
            "The fix was failing over to {region2}.",
            "We failed over to {region2} at {time3} UTC.",
            "Traffic was moved to {region2} by hand.",
        ],
        "action": [
            "automate regional failover",
            "run a failover drill every quarter",
            "keep warm capacity in {region2}",
        ],
        "done": [
            "Failover to {region2} is now automated and drilled monthly.",
            "Warm capacity is now kept in {region2}.",
        ],
        "values": {
            "dep": [
                "the managed queue",
                "object storage",
                "the session store",
                "the managed Kafka cluster",
            ]
        },
    },
    {
        "title": ["secret rotation", "rotated credential"],
        "trigger": [
            "a scheduled rotation changed the database password but {svc_short} kept the old one",
            (
                "a credential rotation was not picked up by {svc_short}, so new connections were "
                "refused"
            ),
            "the {svc_short} service account token was rotated without a restart",
        ],
        "symptom": [
            "failed with authentication errors",
            "got 401s from the database proxy",
            "failed to open connections",
        ],
        "fix": [
            "The fix was restarting {svc_short} to load the new secret.",
            "We restarted the pods at {time3} UTC so they read the new credential.",
            "A rolling restart picked up the rotated password.",
        ],
        "action": [
            "reload secrets without a restart",
            "check every consumer before rotating a credential",
            "alert on authentication failures to the database",
        ],
        "done": [
            "{^svc_short} now reloads secrets when they change.",
            "Rotation now waits until every consumer confirms the new secret.",
        ],
        "values": {},
    },
    {
        "title": ["rate-limit change", "gateway rule"],
        "trigger": [
            (
                "a rate-limit change set the per-tenant limit to {limit} requests per minute "
                "instead of {limit2}"
            ),
            "a new gateway rule throttled {svc_short} traffic at a tenth of normal volume",
            (
                "a typo in the gateway config cut the rate limit for {svc_short} to {limit} per "
                "minute"
            ),
        ],
        "symptom": ["were rejected with 429s", "got 429 Too Many Requests", "were throttled"],
        "fix": [
            "The fix was reverting the gateway rule.",
            "We restored the old limit of {limit2} at {time3} UTC.",
            "Reverting the rate-limit change ended the throttling.",
        ],
        "action": [
            "validate rate-limit changes against last week's peak traffic",
            "stage gateway rules in shadow mode first",
            "alert on the 429 rate per tenant",
        ],
        "done": [
            "Gateway rule changes now run in shadow mode for a day first.",
            "The 429 rate per tenant is now alerted on.",
        ],
        "values": {},
    },
    {
        "title": ["{queue} consumer lag", "queue backlog"],
        "trigger": [
            "the {queue} consumers fell behind after a deploy halved their concurrency",
            "consumer lag on {queue} climbed past {lag} messages after a rebalance stalled",
            "a poison message blocked the {queue} consumer group",
        ],
        "symptom": [
            "were delayed by up to {delay} minutes",
            "arrived late or not at all",
            "were processed late and out of order",
        ],
        "fix": [
            "The fix was restoring consumer concurrency and letting the backlog drain.",
            "We skipped the bad message at {time3} UTC and the backlog drained.",
            "Restarting the consumer group with {extra} extra consumers cleared the lag.",
        ],
        "action": [
            "alert on consumer lag instead of queue depth",
            "send unparseable messages to a dead-letter queue",
            "load test consumer changes",
        ],
        "done": [
            "Unparseable messages now go to a dead-letter queue.",
            "Lag alerts now fire after five minutes.",
        ],
        "values": {
            "queue": ["order-events", "email-jobs", "webhook-deliveries", "search-index-updates"]
        },
    },
    {
        "title": ["flag rollout", "feature flag"],
        "trigger": [
            "a feature flag for the new {feature} was turned on for 100% of traffic instead of 5%",
            "someone enabled the {feature} flag globally during a test",
            "a flag rollout for the {feature} skipped the canary stage",
        ],
        "symptom": ["failed with 500s", "errored", "broke for logged-in users"],
        "fix": [
            "The fix was turning the flag off.",
            "We disabled the flag at {time3} UTC.",
            "Switching the flag back off restored service immediately.",
        ],
        "action": [
            "require a second approver for flag changes above 10%",
            "alert the flag owner when error rates rise after a flag change",
            "link every flag to its rollout plan",
        ],
        "done": [
            "Flag changes above 10% now need a second approver.",
            "Flag owners are now alerted when errors rise after a change.",
        ],
        "values": {
            "feature": ["checkout flow", "pricing page", "search ranking", "session handling"]
        },
    },
    {
        "title": ["{job} batch job", "batch job on primary"],
        "trigger": [
            (
                "the nightly {job} job started early and ran against the primary instead of the "
                "replica"
            ),
            "the {job} batch job ran twice after a scheduler restart",
            "a backfill for {job} saturated the primary's CPU",
        ],
        "symptom": ["slowed to a crawl", "timed out", "saw p99 latency above {lat} seconds"],
        "fix": [
            "The fix was killing the job and rescheduling it.",
            "We stopped the job at {time3} UTC and moved it to the replica.",
            "Pausing the {job} job let the primary recover.",
        ],
        "action": [
            "run batch jobs against the replica only",
            "make the scheduler refuse duplicate runs",
            "cap batch job CPU",
        ],
        "done": [
            "Batch jobs now connect to the replica only.",
            "The scheduler now refuses overlapping runs of the same job.",
        ],
        "values": {"job": ["reporting", "billing export", "search reindex", "data warehouse sync"]},
    },
]

REGIONS = ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-2"]
DATABASES = [
    "orders-db-1",
    "pg-billing-02",
    "mysql-main",
    "the primary Postgres",
    "the Elasticsearch data nodes",
    "sessions-redis",
]
TABLES = ["orders", "sessions", "line_items", "audit_events", "users", "invoices"]

INCIDENT_SYNONYMS: dict[str, list[str]] = {
    "began": ["started"],
    "started": ["began"],
    "outage": ["incident"],
    "requests": ["calls"],
    "failed": ["errored"],
    "errors": ["failures"],
    "rollback": ["revert"],
    "restored": ["recovered"],
    "fix": ["remediation"],
    "roughly": ["about"],
    "about": ["approximately", "around"],
    "deploy": ["release"],
    "traffic": ["load"],
    "paged": ["alerted"],
    "immediately": ["right away"],
    "manually": ["by hand"],
    "blocks": ["prevents"],
    "rejected": ["refused"],
    "cleared": ["drained"],
    "restarting": ["bouncing"],
    "automatically": ["on its own"],
    "new": ["fresh"],
    "old": ["previous"],
    "previous": ["old"],
    "every": ["each"],
    "primary": ["main database"],
    "queued": ["backed up"],
}

INVENTED_ENDINGS = [
    "The incident was caused by insufficient test coverage in the deployment pipeline.",
    "The root cause was a lack of monitoring on the affected service.",
    "This was ultimately due to human error during the change window.",
    "No customer data was affected and no further action is required.",
    "The team has confirmed that this can no longer happen.",
]

CHAPTER_ID = "inc-0042"
EMPTY_REFERENCE_ID = "inc-0077"
BASELINE_ONLY_ID = "inc-0113"
CANDIDATE_ONLY_ID = "inc-0158"
MARKUP_HEADER_ID = "inc-0019"
MARKUP_TAIL_ID = "inc-0150"
N_INCIDENTS = 240


def _joined(*lines: str) -> str:
    """The chapter hard-wraps its texts; the texts are its lines joined by single spaces."""
    return " ".join(lines)


# The worked example of the ROUGE chapter ("What the number counts"), verbatim. Scored with
# the chapter's own code (lower().split(), textbook LCS) A gets F 0.3137 and B 0.8142.
CHAPTER_REFERENCE = _joined(
    "The outage began at 02:14 UTC when a configuration push removed the read",
    "replica from the connection pool. Checkout requests queued behind a single",
    "primary and timed out for 41 minutes. The fix was a rollback of the config",
    "change; a guard has since been added to block pushes that reduce pool size",
    "below two.",
)
CHAPTER_SUMMARY_A = _joined(
    "A bad config deploy at 02:14 UTC dropped the replica out of the pool, so all",
    "checkout traffic piled onto the primary and failed for roughly three quarters",
    "of an hour. Engineers reverted the deploy, and pushes that shrink the pool",
    "below two members are now rejected.",
)
CHAPTER_SUMMARY_B = _joined(
    "The outage began at 02:14 UTC when a configuration push removed the read",
    "replica from the connection pool. Checkout requests queued behind a single",
    "primary and timed out for 41 minutes. A guard has since been added to block",
    "pushes that reduce pool size below two. The incident was caused by",
    "insufficient test coverage in the deployment pipeline.",
)


def incident_grammar(index: int) -> tuple[Grammar, Random]:
    """The grammar of one incident: generic frames + its cause + its fixed facts."""
    rng = rng_for("incident", index)
    cause = CAUSES[rng.randrange(len(CAUSES))]
    short, requests = SERVICES[rng.randrange(len(SERVICES))]
    start = rng.randrange(24 * 60)
    minutes = rng.choice([rng.randint(6, 55), rng.randint(20, 95), rng.randint(60, 200)])
    detect_min = min(rng.randint(4, 22), minutes - 2)  # paged before the fix, not after
    major = rng.randint(1, 9)
    minor = rng.randint(3, 60)
    region, region2 = rng.sample(REGIONS, 2)
    nodes = rng.choice([40, 60, 80, 120, 200])
    limit2 = rng.choice([600, 1200, 3000, 6000])
    grammar: Grammar = {key: list(value) for key, value in INCIDENT_BASE.items()}
    grammar.update(
        svc_short=[short],
        svc_req=[requests],
        time=[hhmm(start)],
        time2=[hhmm(start + detect_min)],
        time3=[hhmm(start + minutes)],
        dur=duration_forms(minutes),
        detect_min=[str(detect_min)],
        pct=[str(rng.choice([15, 20, 30, 40, 60, 70, 85, 90]))],
        ver=[f"v{major}.{minor}.{rng.randint(0, 4)}"],
        prev=[f"v{major}.{minor - 1}.{rng.randint(0, 6)}"],
        lat=[str(rng.choice([3, 5, 8, 12, 30]))],
        region=[region],
        region2=[region2],
        db=[rng.choice(DATABASES)],
        table=[rng.choice(TABLES)],
        nodes=[str(nodes)],
        nodes2=[str(nodes * 2)],
        limit=[str(limit2 // 10)],
        limit2=[f"{limit2:,}"],
        lag=[f"{rng.choice([50, 120, 400, 900]):,},000"],
        delay=[str(rng.choice([12, 25, 40, 90]))],
        extra=[str(rng.choice([4, 6, 8]))],
        ticket=[f"OPS-{rng.randint(1000, 9999)}"],
        sev=[str(rng.choice([1, 2, 2, 2, 3, 3]))],
    )
    # The numbers behind the clock times, for the postmortem's timeline (no draw: the
    # references' stream stays as it was).
    grammar.update(start_at=[str(start)], length_min=[str(minutes)])
    for key in ("title", "trigger", "symptom", "fix", "action", "done"):
        grammar[key] = list(cause[key])  # type: ignore[arg-type]
    values = cause["values"]
    assert isinstance(values, dict)
    for key, options in values.items():
        value = rng.choice(options)
        if key.endswith("_pair"):
            long, short_form = value.split("|")
            stem = key.removesuffix("_pair")
            grammar[stem], grammar[f"{stem}_short"] = [long], [short_form]
        else:
            grammar[key] = [value]
    return grammar, rng


def render_reference(grammar: Grammar, rng: Random) -> tuple[str, dict[str, int]]:
    """A reference of 40-90 words in the engineers' own phrasing, and the picks it used."""
    for _ in range(200):
        renderer = Renderer(grammar, rng)
        text = tidy(renderer.render("{root}"))
        if 40 <= word_count(text) <= 90:
            return text, renderer.picks
    raise RuntimeError("no reference of 40-90 words from this grammar")


def paraphrase(
    grammar: Grammar,
    rng: Random,
    like: Mapping[str, int],
    p_same: float,
    force: Mapping[str, int] | None = None,
    swaps: int = 0,
    synonyms: Mapping[str, Sequence[str]] = INCIDENT_SYNONYMS,
) -> str:
    """The same facts re-rendered: each slot keeps the reference's wording with `p_same`."""
    text = tidy(Renderer(grammar, rng, like, p_same, force).render("{root}"))
    return reword(text, rng, swaps, synonyms)


def truncate(text: str, rng: Random) -> str:
    """Cut mid-sentence, as a max-token limit does: a strict prefix, sometimes mid-word."""
    low, high = int(len(text) * 0.25), int(len(text) * 0.6)
    spaces = [i for i in range(low, high) if text[i] == " " and text[i - 1] not in ".;:"]
    if rng.random() < 0.3:
        inside = [i for i in range(low, high) if text[i - 3 : i + 1].isalpha()]
        if inside:
            return text[: rng.choice(inside)]
    return text[: rng.choice(spaces)] if spaces else text[:low].rstrip()


def first_line_twice(text: str) -> str:
    """A template bug: the header (or the first line) emitted twice."""
    lines = text.split("\n")
    if len(lines) > 1:
        return "\n".join([lines[0], *lines])
    return "Summary:\nSummary:\n" + text


def chapter_lcs(a: Sequence[str], b: Sequence[str]) -> int:
    """The chapter's textbook LCS of two token lists."""
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal = 0
        for j, y in enumerate(b, 1):
            diagonal, row[j] = row[j], diagonal + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def chapter_rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F as the chapter computes it: ``lower().split()`` tokens, textbook LCS."""
    c, r = candidate.lower().split(), reference.lower().split()
    m = chapter_lcs(c, r)
    return 0.0 if m == 0 else 2 * m / (len(c) + len(r))


_FIGURE = re.compile(r"\d+(?:[.,:/-]\d+)*%?")  # SPEC's figures, as written


def figure_set(*texts: str) -> set[str]:
    """Every figure of the texts, as SPEC reads them (``02:14``, ``41``, ``4.12.3``)."""
    return {m.group() for text in texts for m in _FIGURE.finditer(text)}


_WORD = re.compile(r"[^\W_]+")  # SPEC's words for grounding
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]’”]*(?=\s)")


def sentence_words(text: str) -> list[list[str]]:
    """The words of each of the text's sentences, as SPEC cuts them (lines, then a run of
    ``.!?`` and closing marks before whitespace)."""
    found = []
    for line in text.splitlines():
        for piece in _SENTENCE_END.split(line):
            words = _WORD.findall(piece.casefold())
            if words:
                found.append(words)
    return found


def all_supported(text: str, *grounds: str, min_support: float = 0.5) -> bool:
    """Whether every sentence of ``text`` has a counterpart in ``grounds`` (SPEC's support:
    the largest share of its words on an LCS with one sentence there)."""
    others = [words for ground in grounds for words in sentence_words(ground)]
    return all(
        max((chapter_lcs(own, other) for other in others), default=0) >= min_support * len(own)
        for own in sentence_words(text)
    )


# ---------------------------------------------------------------------------------------
# The postmortems the references were written from (the records' "source" field): the same
# facts, partly in the reference's words, plus what a summary leaves out: the ticket, the
# version, the region, the number of nodes, who was paged, what was tried first, a timeline.
# ---------------------------------------------------------------------------------------

PAGED = [
    "the {svc_short} on-call",
    "the platform on-call",
    "the SRE secondary",
    "the database on-call",
]
TRIED = [
    "restarting the {svc_short} pods",
    "scaling {svc_short} out by hand",
    "failing the database over to its standby",
    "flushing the CDN cache",
    "rolling back the last application deploy",
]
HOSTS = [6, 8, 12, 16, 24, 32, 48]
SOURCE_DETAILS = {
    # Sentences a summary could copy from its postmortem, each with a figure the reference
    # does not have (the copied-figure drift picks one of the first two).
    "env": "{^svc_short} was running {ver} on {hosts} nodes in {region}.",
    "ticket": "Tracked as {ticket}.",
    "paged": "{^paged} was paged at {time2} UTC, {detect_min} minutes after the start.",
    "tried": "At {tried_at} UTC on-call first tried {tried}, which did not help.",
    "restored": "Service was fully restored at {clear_at} UTC.",
}

CHAPTER_TITLE = "SEV2: Checkout timeouts (config push removed read replica)"
# The postmortem of the chapter's incident: the reference's three sentences as written, and
# the finding that rules out Summary B's closing sentence (the chapter: "the config push was
# covered by tests, and it passed them, because the tests asserted on pool health after the
# change rather than on pool size during it").
CHAPTER_FINDING = (
    "The config push was covered by tests, and it passed them, because the tests asserted on "
    "pool health after the change rather than on pool size during it."
)
CHAPTER_DETAILS = (
    "Checkout was running v4.18.2 on 24 nodes in us-east-1. Tracked as OPS-4127. The checkout "
    "on-call was paged at 02:19 UTC, 5 minutes after the start. At 02:23 UTC on-call first "
    f"tried restarting the checkout pods, which did not help. {CHAPTER_FINDING} Service was "
    "fully restored at 03:02 UTC."
)
CHAPTER_TIMELINE = (
    "Timeline (UTC): 02:14 start; 02:19 page; 02:23 first attempt; 02:55 mitigation; 03:02 all "
    "clear."
)
CHAPTER_FOLLOW_UPS = (
    "Follow-ups: block config pushes that reduce pool size below two; assert on pool size during "
    "config changes, not only on pool health after them."
)
CHAPTER_SOURCE = "\n".join(
    [
        f"Postmortem OPS-4127: {CHAPTER_TITLE}",
        CHAPTER_REFERENCE,
        CHAPTER_DETAILS,
        CHAPTER_TIMELINE,
        CHAPTER_FOLLOW_UPS,
    ]
)


def render_source(
    grammar: Grammar, picks: Mapping[str, int], reference: str, title: str, index: int
) -> tuple[str, dict[str, str]]:
    """An incident's postmortem, and its detail sentences by name (each one is in it)."""
    rng = rng_for("incident", "source", index)
    start, minutes = int(grammar["start_at"][0]), int(grammar["length_min"][0])
    detect = int(grammar["detect_min"][0])
    tried_at = start + detect + rng.randint(2, 6)
    clear_at = start + minutes + rng.randint(4, 15)
    local: Grammar = {**grammar, "paged": PAGED, "tried": TRIED}
    local.update(
        hosts=[str(rng.choice(HOSTS))], tried_at=[hhmm(tried_at)], clear_at=[hhmm(clear_at)]
    )
    plain = Renderer(local, rng)
    # The numbers of the impact, whichever wording a summary picks: the percentage, the
    # duration exactly, the latency or the delay where the cause has them.
    symptoms = " ".join(grammar["symptom"])
    exact = grammar["dur"][0]  # "1 hour 23 minutes", or "41 minutes"
    impact = "Impact: {pct}% of {svc_req} for " + exact
    impact += "" if exact == f"{minutes} minutes" else " ({length_min} minutes)"
    impact += ", p99 latency above {lat} seconds" if "{lat}" in symptoms else ""
    impact += ", delays of up to {delay} minutes" if "{delay}" in symptoms else ""
    names = [
        "env",
        "ticket",
        "paged",
        *(["tried"] if tried_at < start + minutes else []),
        "restored",
    ]
    details = {name: tidy(plain.render(SOURCE_DETAILS[name])) for name in names}
    timeline = [(start, "start"), (start + detect, "page")]
    if "tried" in details:
        timeline.append((tried_at, "first attempt"))
    timeline += [(start + minutes, "mitigation"), (clear_at, "all clear")]
    timeline.sort(key=lambda entry: entry[0])  # stable: equal times keep their order
    # Every follow-up the postmortem agreed on, and what is done already.
    actions = [*(plain.render(a) for a in grammar["action"]), plain.render("{action2}")]
    done = " ".join(plain.render(d) for d in grammar["done"])
    # The narrative: the reference's facts, some in its words (the engineer who wrote the
    # summary copied from here), always with the detection, and every figure the reference
    # has (the reference's own wording when no other keeps them all).
    detect_pick = picks.get("detect#0", 0) or rng.randrange(1, len(grammar["detect"]))
    for attempt in range(21):
        story = Renderer(
            local, rng, like=picks, p_same=0.6 if attempt < 20 else 1.0,
            force={"detect#0": detect_pick},
        )  # fmt: skip
        lines = [
            f"Postmortem {grammar['ticket'][0]}: {title}",
            tidy(story.render("{onset} {impact} {detect} {fix}")),
            " ".join([tidy(plain.render(impact)) + ".", *details.values()]),
            "Timeline (UTC): " + "; ".join(f"{hhmm(at)} {what}" for at, what in timeline) + ".",
            f"Follow-ups: {'; '.join(actions)}. Done: {done}",
        ]
        source = "\n".join(lines)
        if figure_set(reference) <= figure_set(source):
            break
    return source, details


# ---------------------------------------------------------------------------------------
# The suite's history: one build a night. The nights before the candidate differ only by a
# handful of outputs reworded; a few examples flip between two wordings every night
# (volatile); one night has a one-night incident (outputs cut short, fixed the next day); one
# night is run three times; one night lost two outputs. The last night is the candidate.
# ---------------------------------------------------------------------------------------

NIGHTS = [f"2026-11-{day}" for day in range(20, 28)]
BUILD_TAGS = {"2026-11-20": "4be1c0", "2026-11-27": "9f03aa"}  # the names of the first suite
GAP_NIGHT = "2026-11-22"  # a worker crashed: two outputs missing
INCIDENT_NIGHT = "2026-11-23"  # a max-token limit cut some outputs short; reverted next day
REPLICATE_NIGHT = "2026-11-24"  # run three times
REPLICATE_RUNS = 3
N_NOISE = 5  # outputs reworded per night (and per run)
N_VOLATILE = 8
N_CUT = 10
N_GAP = 2


def build_name(night: str) -> str:
    """A nightly build's name: the date and a short commit hash (made up, fixed)."""
    tag = BUILD_TAGS.get(night) or f"{rng_for('incident', 'build', night).getrandbits(24):06x}"
    return f"{night}_{tag}"


def second_wording(
    grammar: Grammar, picks: Mapping[str, int], output: str, reference: str, source: str, key: str
) -> str:
    """Another wording of an output that scores 0.1 to 0.3 away from it and brings no figure
    or sentence the other wording, the reference and the source lack: sampling noise, large
    enough to move an example's F on every flip, and nothing for the grounding signals."""
    rng = rng_for("incident", "volatile", key)
    header = "Summary:\n" if output.startswith("Summary:\n") else ""
    known = figure_set(reference, source)
    f_output = chapter_rouge_l(output, reference)
    for _ in range(1000):
        text = header + paraphrase(grammar, rng, picks, 0.3, swaps=rng.randint(0, 2))
        gap = abs(chapter_rouge_l(text, reference) - f_output)
        if (
            0.1 <= gap <= 0.3
            and figure_set(text) <= known | figure_set(output)
            and figure_set(output) <= known | figure_set(text)
            and all_supported(text, reference, source, output)
            and all_supported(output, reference, source, text)
        ):
            return text
    raise RuntimeError(f"no second wording for {key}")


def balanced_phases(gaps: Sequence[float]) -> list[int]:
    """Which wording each flipping example shows on the first night (0 or 1), chosen so that
    the nights' means barely move with the flips: signs that bring the sum of the gaps
    closest to zero, the first such in a fixed order."""
    best: tuple[float, list[int]] | None = None
    for mask in range(1 << (len(gaps) - 1)):  # the first example's phase fixed at 0
        phases = [0] + [(mask >> k) & 1 for k in range(len(gaps) - 1)]
        total = abs(sum(g if p == 0 else -g for g, p in zip(gaps, phases)))
        if best is None or total < best[0]:
            best = total, phases
    assert best is not None
    return best[1]


def insert_sentence(text: str, sentence: str) -> str:
    """Put ``sentence`` after the output's first sentence (at the end if it has one)."""
    end = re.search(r"[.!?](\s)", text)
    if end is None:
        return text + " " + sentence
    return text[: end.end()] + sentence + " " + text[end.end() :]


def change_duration(text: str, grammar: Grammar, known: set[str], rng: Random) -> str | None:
    """The output with its duration in minutes changed ("41 minutes" -> "45 minutes"), to a
    number no text of the example has; None when it states no exact duration in minutes."""
    exact = [form for form in grammar["dur"] if re.fullmatch(r"\d+ minutes", form)]
    for form in exact:
        at = re.search(rf"(?<![\w.:,/-]){re.escape(form)}", text)
        if at is None or text[max(0, at.start() - 6) : at.start()].endswith("about "):
            continue
        minutes = int(form.split()[0])
        steps = [4, -4, 5, -5, 3, -3, 6, 7]
        rng.shuffle(steps)
        for step in steps:
            new = str(minutes + step)
            if minutes + step >= 2 and new not in known:
                return text[: at.start()] + f"{new} minutes" + text[at.end() :]
    return None


def incident_suite() -> dict[str, str]:
    """All files of the incident suite, by relative path."""
    ids = [f"inc-{i:04d}" for i in range(1, N_INCIDENTS + 1)]
    references: dict[str, dict[str, str]] = {}
    base: dict[str, str] = {}  # each example's usual output (the nights before the candidate)
    grammars: dict[str, tuple[Grammar, dict[str, int]]] = {}
    details: dict[str, dict[str, str]] = {}
    seen: set[str] = set()
    for index, example_id in enumerate(ids, 1):
        grammar, rng = incident_grammar(index)
        reference, picks = render_reference(grammar, rng)
        while reference in seen:
            reference, picks = render_reference(grammar, rng)
        seen.add(reference)
        title = tidy(Renderer(grammar, rng).render("{input}"))
        grammars[example_id] = grammar, picks
        source, details[example_id] = render_source(grammar, picks, reference, title, index)
        references[example_id] = {
            "id": example_id, "input": title, "reference": reference, "source": source
        }  # fmt: skip
        # A decent model: the same facts, mostly in other words; sometimes a header line.
        drop_detect = {"detect#0": 0} if rng.random() < 0.35 else None
        output = paraphrase(grammar, rng, picks, 0.3, drop_detect, swaps=rng.randint(0, 2))
        if rng.random() < 0.12:
            output = "Summary:\n" + output
        base[example_id] = output

    references[CHAPTER_ID].update(
        reference=CHAPTER_REFERENCE, input=CHAPTER_TITLE, source=CHAPTER_SOURCE
    )
    base[CHAPTER_ID] = CHAPTER_SUMMARY_A
    references[EMPTY_REFERENCE_ID]["reference"] = "   "
    base[MARKUP_HEADER_ID] = "[bold]Incident summary[/bold]\n" + base[MARKUP_HEADER_ID]
    special = {
        CHAPTER_ID,
        EMPTY_REFERENCE_ID,
        BASELINE_ONLY_ID,
        CANDIDATE_ONLY_ID,
        MARKUP_HEADER_ID,
        MARKUP_TAIL_ID,
    }

    # Roles in the history, from a seeded shuffle of the ordinary ids.
    ordinary = [i for i in ids if i not in special]
    roles = list(ordinary)
    rng_for("incident", "history-roles").shuffle(roles)
    flipping = sorted(roles[:N_VOLATILE])
    gap = sorted(roles[N_VOLATILE : N_VOLATILE + N_GAP])
    # The incident night's cuts: outputs whose F the cut moves by 0.1 or more (down, then
    # back up the next night: two moves, not volatile).
    cuts: dict[str, str] = {}
    for example_id in roles[N_VOLATILE + N_GAP :]:
        if len(cuts) == N_CUT:
            break
        reference = references[example_id]["reference"]
        short = truncate(base[example_id], rng_for("incident", "cut", example_id))
        if chapter_rouge_l(base[example_id], reference) - chapter_rouge_l(short, reference) >= 0.1:
            cuts[example_id] = short
    cut = sorted(cuts)
    wordings = {}
    for example_id in flipping:
        grammar, picks = grammars[example_id]
        row = references[example_id]
        second = second_wording(
            grammar, picks, base[example_id], row["reference"], row["source"], example_id
        )
        wordings[example_id] = (base[example_id], second)
    gaps = [
        chapter_rouge_l(wordings[i][1], references[i]["reference"])
        - chapter_rouge_l(wordings[i][0], references[i]["reference"])
        for i in flipping
    ]
    phases = dict(zip(flipping, balanced_phases(gaps)))
    quiet = sorted(set(ordinary) - set(flipping) - set(cut) - set(gap))

    def night_outputs(night_index: int, night: str, run: int) -> dict[str, str]:
        outputs = dict(base)
        del outputs[CANDIDATE_ONLY_ID]  # a new example: only the candidate has run it
        for example_id in flipping:
            outputs[example_id] = wordings[example_id][(night_index + phases[example_id]) % 2]
        rng = rng_for("incident", "noise", night, run)
        for example_id in rng.sample(quiet, N_NOISE):
            outputs[example_id] = reword(
                base[example_id], rng, rng.randint(1, 2), INCIDENT_SYNONYMS
            )
        if night == INCIDENT_NIGHT:
            outputs.update(cuts)
        if night == GAP_NIGHT:
            for example_id in gap:
                del outputs[example_id]
        return outputs

    files: dict[str, str] = {}
    baseline: dict[str, str] = {}
    for night_index, night in enumerate(NIGHTS[:-1]):
        name = build_name(night)
        if night == REPLICATE_NIGHT:
            for run in range(1, REPLICATE_RUNS + 1):
                outputs = night_outputs(night_index, night, run)
                files[f"builds/{name}/run-{run}.jsonl"] = outputs_jsonl(outputs)
        else:
            baseline = night_outputs(night_index, night, 1)
            files[f"builds/{name}.jsonl"] = outputs_jsonl(baseline)

    # The candidate: the baseline (the last night before it) with the drift, in fixed counts
    # over a seeded shuffle of the ordinary ids that keep still in the history.
    candidate = dict(baseline)
    candidate[CANDIDATE_ONLY_ID] = base[CANDIDATE_ONLY_ID]
    del candidate[BASELINE_ONLY_ID]
    candidate[CHAPTER_ID] = CHAPTER_SUMMARY_B
    candidate[MARKUP_TAIL_ID] = baseline[MARKUP_TAIL_ID] + "[/]"
    for example_id in flipping:
        candidate[example_id] = wordings[example_id][(len(NIGHTS) - 1 + phases[example_id]) % 2]
    drift_ids = [i for i in ids if i not in special]
    plan_rng = rng_for("incident", "drift-plan")
    plan_rng.shuffle(drift_ids)
    drift_ids = [i for i in drift_ids if i in quiet]
    plan = [
        ("prefix", 18),
        ("shorter", 6),
        ("duplicated", 14),
        ("invented", 19),
        ("heavier", 19),
        ("empty", 3),
        ("improved", 5),
        ("changed-figure", 7),
        ("copied-figure", 8),
        ("reworded", 36),
    ]
    for kind, count in plan:
        done = 0
        for example_id in list(drift_ids):
            if done == count:
                break
            grammar, picks = grammars[example_id]
            row = references[example_id]
            rng = rng_for("incident", "drift", example_id)
            old = baseline[example_id]
            known = figure_set(row["reference"], row["source"], old)
            new: str | None
            if kind == "prefix":
                new = truncate(old, rng)
            elif kind == "shorter":
                body = old.removeprefix("Summary:\n")
                new = " ".join(
                    reword(body, rng, 1, INCIDENT_SYNONYMS).split()[: rng.randint(7, 12)]
                )
            elif kind == "duplicated":
                new = first_line_twice(old)
            elif kind == "invented":
                new = old + rng.choice([" ", "\n"]) + rng.choice(INVENTED_ENDINGS)
            elif kind == "heavier":
                force = {"detect#0": 0, "follow#0": 2}
                new = paraphrase(grammar, rng, picks, 0.0, force, swaps=rng.randint(3, 5))
                new = new.split("\n")[0] if "\n" in new and rng.random() < 0.5 else new
            elif kind == "empty":
                new = ""
            elif kind == "improved":
                new = paraphrase(grammar, rng, picks, 0.9)
            elif kind == "changed-figure":
                new = change_duration(old, grammar, known, rng)
            elif kind == "copied-figure":
                # The new prompt asks for the ticket and the version: copied from the source.
                # The version and node count go after the first sentence, the ticket last.
                options = [
                    name
                    for name in ("env", "ticket")
                    if figure_set(details[example_id][name]) - figure_set(row["reference"], old)
                ]
                name = rng.choice(options) if options else None
                copied = details[example_id][name] if name else ""
                if name == "env":
                    new = insert_sentence(old, copied)
                else:
                    new = old + " " + copied if name else None
            else:
                new = reword(old, rng, rng.randint(1, 3), INCIDENT_SYNONYMS)
            if new is None:
                continue  # not this kind's example: leave it to the next kind
            candidate[example_id] = new
            drift_ids.remove(example_id)
            done += 1
        assert done == count, (kind, done)
    files[f"builds/{build_name(NIGHTS[-1])}.jsonl"] = outputs_jsonl(candidate)

    files["suite.toml"] = (
        "# Generated by sample_suites/generate.py: edit the script, not this file.\n"
        'name = "Incident summaries"\n'
        'metric = "rougeL"\n'
        'tokenizer = "whitespace"\n'
        "stem = false\n"
        "\n"
        "[band]\n"
        "k = 2.0\n"
    )
    files["references.jsonl"] = jsonl(references[i] for i in sorted(references))
    return files


# ---------------------------------------------------------------------------------------
# Support answers
# ---------------------------------------------------------------------------------------

# Per topic: "q" (ways users ask it), "a1", "a2" (and optionally "a3"): the core of every
# answer, each in a few wordings; "extras": optional facts, each in a few wordings; and
# "values": facts fixed per example (a number, a plan, a platform).
TOPICS: list[dict[str, object]] = [
    {
        "q": [
            "How do I reset my password?",
            "I forgot my password, what do I do?",
            "I can't log in, how do I get a new password?",
        ],
        "a1": [
            "On the sign-in page, choose Forgot password and enter your work email.",
            "Click Forgot password on the login screen and type the email you sign in with.",
            "Use the Forgot password link under the sign-in form.",
        ],
        "a2": [
            "We send a reset link that expires after {mins} minutes.",
            "The reset link in that email is valid for {mins} minutes.",
            "You will get an email with a link that works for {mins} minutes.",
        ],
        "extras": [
            [
                "If it does not arrive, check your spam folder.",
                "No email? Look in spam or promotions first.",
            ],
            [
                (
                    "If your workspace uses SSO, reset the password with your identity provider "
                    "instead."
                ),
                (
                    "Accounts that sign in through SSO change the password at the identity provider, "
                    "not here."
                ),
            ],
            [
                "An admin can also send you a new link from the Members page.",
                "Your workspace admin can trigger a fresh reset email from Members.",
            ],
        ],
        "values": {"mins": ["15", "30", "60"]},
    },
    {
        "q": [
            "I lost my phone and can't get my 2FA codes.",
            "My authenticator app is gone after a phone reset, how do I log in?",
            "How do I get into my account without my 2FA device?",
        ],
        "a1": [
            (
                "Sign in with one of the {n} backup codes you saved when you set up two-factor "
                "authentication."
            ),
            (
                "Use a backup code instead of the app code; you got {n} of them when you enabled "
                "2FA."
            ),
            (
                "Each account has {n} single-use backup codes, and any of them works in place of "
                "the app code."
            ),
        ],
        "a2": [
            (
                "Once you are in, go to Settings > Security and set up the authenticator again "
                "on your new phone."
            ),
            "After signing in, re-enroll your new device under Settings > Security.",
            "Then open Settings > Security and scan the new QR code with your new phone.",
        ],
        "extras": [
            [
                (
                    "If you have no backup codes left, a workspace admin can reset 2FA for you from "
                    "the Members page."
                ),
                "Without backup codes, ask an admin to reset your second factor in Members.",
            ],
            [
                "For security, support cannot turn off 2FA on your behalf.",
                "Our support team is not able to disable two-factor authentication for you.",
            ],
            [
                "Identity checks for owner accounts take {days} business days.",
                (
                    "If you are the workspace owner, we verify your identity first, which takes about "
                    "{days} business days."
                ),
            ],
        ],
        "values": {"n": ["8", "10", "12"], "days": ["2", "3", "5"]},
    },
    {
        "q": [
            "How do I invite my team?",
            "How can I add new users to our workspace?",
            "Where do I add teammates?",
        ],
        "a1": [
            ("Go to Settings > Members and click Invite, then enter one email address per line."),
            (
                "Open Members under Settings, choose Invite and paste the email addresses of the "
                "people you want to add."
            ),
            "Admins can add people from Settings > Members with the Invite button.",
        ],
        "a2": [
            ("Invitations expire after {days} days, and you can resend them from the same page."),
            "Each invite link is valid for {days} days; resend it if someone misses it.",
            "Pending invites stay open for {days} days before they lapse.",
        ],
        "extras": [
            [
                "The {plan} plan includes {seats} seats; extra seats are billed monthly.",
                (
                    "Your {plan} plan covers {seats} seats and each extra seat is added to the next "
                    "invoice."
                ),
            ],
            [
                "Only admins and owners can send invitations.",
                "Members without the admin role cannot invite people.",
            ],
            [
                "To add a whole domain at once, turn on domain capture in Settings > Security.",
                (
                    "You can also let anyone with your company email domain join automatically "
                    "through domain capture."
                ),
            ],
        ],
        "values": {
            "days": ["7", "14", "30"],
            "plan": ["Starter", "Team", "Business"],
            "seats": ["5", "10", "25"],
        },
    },
    {
        "q": [
            "How can I export all my data?",
            "Is there a way to download everything in my workspace?",
            "I need a full export of our projects.",
        ],
        "a1": [
            "Go to Settings > Data and choose Export workspace, then pick {fmt}.",
            "Open Settings > Data, click Export workspace and select {fmt} as the format.",
            ("Workspace exports live under Settings > Data; choose Export and the {fmt} format."),
        ],
        "a2": [
            ("We email a download link when the export is ready, usually within {mins} minutes."),
            (
                "When the file is ready you get an email with a link; most exports finish in "
                "under {mins} minutes."
            ),
            (
                "The export runs in the background and we email you a link, typically within "
                "{mins} minutes."
            ),
        ],
        "extras": [
            [
                "The link stays valid for {hours} hours.",
                "Download links expire after {hours} hours, so grab the file soon.",
            ],
            [
                "Attachments are exported separately as a ZIP file.",
                "File attachments come in a separate ZIP archive.",
            ],
            ["Only workspace owners can run a full export.", "Full exports are limited to owners."],
        ],
        "values": {"fmt": ["CSV", "JSON"], "mins": ["10", "15", "30"], "hours": ["24", "48", "72"]},
    },
    {
        "q": [
            "How do I create an API key?",
            "Where do I get an API token?",
            "How do I generate credentials for the API?",
        ],
        "a1": [
            "Go to Settings > API and click Create key.",
            "API keys are created under Settings > API with the Create key button.",
            "Open Settings > API and choose Create key.",
        ],
        "a2": [
            "Give the key a name and choose its scopes; read-only is the default.",
            "Name the key and pick the scopes it needs, which default to read-only.",
            "Pick a name and the scopes; new keys start as read-only.",
        ],
        "a3": [
            "The key is shown only once, so copy it into your secret manager right away.",
            "Copy the key immediately, because we show it only once.",
            (
                "We display the full key a single time, so store it somewhere safe before you "
                "close the dialog."
            ),
        ],
        "extras": [
            [
                "Keys expire after {days} days unless you turn expiry off.",
                "By default keys expire after {days} days.",
            ],
            [
                (
                    "To rotate a key, create a new one, switch your integration, then revoke the old "
                    "key."
                ),
                (
                    "Rotation means creating a second key, moving traffic to it and revoking the "
                    "first."
                ),
            ],
        ],
        "values": {"days": ["90", "180", "365"]},
    },
    {
        "q": [
            "Why am I getting 429 errors from the API?",
            "What are the API rate limits?",
            "Our integration keeps hitting Too Many Requests.",
        ],
        "a1": [
            "The API allows {rpm} requests per minute per key on the {plan} plan.",
            "Each key on {plan} can make {rpm} requests per minute.",
            "On the {plan} plan the limit is {rpm} requests a minute per API key.",
        ],
        "a2": [
            (
                "Past that we return 429 with a Retry-After header that says how many seconds "
                "to wait."
            ),
            (
                "When you exceed it you get a 429 response and a Retry-After header telling you "
                "when to try again."
            ),
            (
                "Requests over the limit fail with 429; wait for the number of seconds in "
                "Retry-After before retrying."
            ),
        ],
        "extras": [
            [
                "Use exponential backoff in your client rather than retrying immediately.",
                "Retry with exponential backoff instead of hammering the endpoint.",
            ],
            [
                "Bulk endpoints count as one request for up to {batch} items.",
                "You can batch up to {batch} items in one call to stay under the limit.",
            ],
            [
                "Higher limits are available on Enterprise.",
                "If you need more, Enterprise plans have higher limits.",
            ],
        ],
        "values": {
            "rpm": ["60", "120", "600"],
            "plan": ["Starter", "Team", "Business"],
            "batch": ["100", "500"],
        },
    },
    {
        "q": [
            "How do I upgrade my plan?",
            "Can I switch to a different plan?",
            "How do I change our subscription?",
        ],
        "a1": [
            "Owners can change the plan in Settings > Billing by clicking Change plan.",
            "Go to Settings > Billing and choose Change plan; only owners see this button.",
            "Plan changes are made by the workspace owner under Settings > Billing.",
        ],
        "a2": [
            (
                "Upgrades take effect immediately and we charge a prorated amount for the rest "
                "of the cycle."
            ),
            (
                "When you upgrade, the new features unlock right away and the difference is "
                "prorated."
            ),
            "An upgrade applies at once, with a prorated charge for the current period.",
        ],
        "extras": [
            [
                "Downgrades apply at the end of the current billing period.",
                "If you downgrade, the change happens when the current period ends.",
            ],
            [
                "If you are over the seat limit of the smaller plan, remove members first.",
                "You need to be within the lower plan's seat limit before downgrading.",
            ],
            [
                "Annual plans can be changed to monthly only at renewal.",
                "Switching from annual to monthly billing is possible only at renewal.",
            ],
        ],
        "values": {},
    },
    {
        "q": [
            "Can I get a refund?",
            "We were charged by mistake, how do we get our money back?",
            "What is your refund policy?",
        ],
        "a1": [
            "We refund annual plans in full within {days} days of purchase.",
            "Annual subscriptions can be refunded in full during the first {days} days.",
            "If you bought an annual plan less than {days} days ago, you get a full refund.",
        ],
        "a2": [
            (
                "Monthly plans are not refunded, but you can cancel any time and keep access "
                "until the period ends."
            ),
            (
                "Monthly charges are non-refundable; cancel and you keep access until the end "
                "of the month."
            ),
            ("For monthly plans we do not issue refunds, though cancelling stops the next charge."),
        ],
        "extras": [
            [
                "Reply to your receipt email or write to billing support with the invoice number.",
                "Send the invoice number to billing support, or just reply to the receipt.",
            ],
            [
                "Refunds reach your card within {bdays} business days.",
                "It takes {bdays} business days for the money to show up on your card.",
            ],
        ],
        "values": {"days": ["14", "30"], "bdays": ["5", "7", "10"]},
    },
    {
        "q": [
            "Where can I download our invoices?",
            "How do I get a copy of an invoice?",
            "Can invoices go straight to our finance team?",
        ],
        "a1": [
            (
                "All invoices are in Settings > Billing under Invoice history, each with a PDF "
                "download."
            ),
            (
                "Open Settings > Billing and scroll to Invoice history to download any invoice "
                "as a PDF."
            ),
            ("Go to Invoice history in Settings > Billing; every invoice has a Download PDF link."),
        ],
        "a2": [
            "To send them to finance automatically, add a billing email on the same page.",
            "You can add a separate billing email there so finance gets every invoice.",
            (
                "Add your finance team's address as the billing email and they will receive "
                "each invoice."
            ),
        ],
        "extras": [
            [
                (
                    "Company name, address and VAT number can be edited before the next invoice is "
                    "issued."
                ),
                "Update your VAT number and address there; changes apply from the next invoice.",
            ],
            [
                "Past invoices cannot be reissued with new details.",
                "We cannot change invoices that were already issued.",
            ],
        ],
        "values": {},
    },
    {
        "q": [
            "Do you support SSO?",
            "How do we set up SAML single sign-on?",
            "Can we log in with {idp}?",
        ],
        "a1": [
            "SAML single sign-on is available on the Enterprise plan and works with {idp}.",
            (
                "Yes, Enterprise workspaces can use SAML SSO with {idp} and other SAML 2.0 "
                "providers."
            ),
            "SSO over SAML 2.0 is included in Enterprise, and {idp} is supported.",
        ],
        "a2": [
            (
                "An owner sets it up in Settings > Security > SSO by uploading the metadata file "
                "from {idp}."
            ),
            "Go to Settings > Security > SSO and paste the metadata URL from your {idp} app.",
            "Configure it under Settings > Security > SSO with the metadata from {idp}.",
        ],
        "extras": [
            [
                "Test the connection before you enforce SSO for everyone.",
                "Use Test connection first, then turn on Enforce SSO.",
            ],
            [
                "Once enforced, members can no longer sign in with a password.",
                "After enforcement, password sign-in is disabled for members.",
            ],
            [
                (
                    "SCIM provisioning is available too, so users are added and removed "
                    "automatically."
                ),
                "You can also turn on SCIM to sync users from {idp}.",
            ],
        ],
        "values": {"idp": ["Okta", "Azure AD", "Google Workspace", "OneLogin"]},
    },
    {
        "q": [
            "How do I delete my account?",
            "How can we close our workspace?",
            "I want to delete all our data and cancel.",
        ],
        "a1": [
            "The owner can delete the workspace from Settings > General > Delete workspace.",
            ("Go to Settings > General and choose Delete workspace; only the owner can do this."),
            "Workspace deletion is under Settings > General, and it needs the owner role.",
        ],
        "a2": [
            (
                "Deleted workspaces can be restored for {days} days, after which all data is "
                "removed permanently."
            ),
            (
                "We keep the data for {days} days in case you change your mind, then erase it "
                "for good."
            ),
            (
                "For {days} days you can still restore it; after that everything is permanently "
                "deleted."
            ),
        ],
        "extras": [
            [
                "Cancel your subscription first so you are not billed again.",
                (
                    "Make sure the subscription is cancelled, or the next renewal will still be "
                    "charged."
                ),
            ],
            [
                "Export anything you want to keep before deleting.",
                "Run an export first if you need a copy of your data.",
            ],
        ],
        "values": {"days": ["14", "30"]},
    },
    {
        "q": [
            "Our webhooks stopped arriving.",
            "Why are webhook deliveries failing?",
            "How do I debug webhooks?",
        ],
        "a1": [
            (
                "Check Settings > Webhooks > Deliveries for the response code your endpoint "
                "returned."
            ),
            (
                "The Deliveries tab under Settings > Webhooks shows each attempt and the status "
                "your server sent back."
            ),
            (
                "Open Settings > Webhooks and look at Deliveries to see the status code of every "
                "attempt."
            ),
        ],
        "a2": [
            ("We retry failed deliveries {n} times over {hours} hours, then disable the endpoint."),
            (
                "Failed deliveries are retried {n} times across {hours} hours before the "
                "endpoint is switched off."
            ),
            "After {n} failed retries in {hours} hours we pause the endpoint.",
        ],
        "extras": [
            [
                "Your endpoint must answer with a 2xx status within {secs} seconds.",
                (
                    "Respond with any 2xx code in under {secs} seconds or the attempt counts as "
                    "failed."
                ),
            ],
            [
                "Verify the signature header with your signing secret, not the API key.",
                (
                    "Signatures are made with the webhook signing secret, so check them with that "
                    "secret rather than your API key."
                ),
            ],
            [
                "Re-enable the endpoint from the same page once it is fixed.",
                "When the endpoint works again, turn it back on in Settings > Webhooks.",
            ],
        ],
        "values": {"n": ["5", "8", "10"], "hours": ["24", "72"], "secs": ["5", "10"]},
    },
    {
        "q": [
            "We hit our storage limit, what now?",
            "How much storage do we get?",
            "Why can't I upload files anymore?",
        ],
        "a1": [
            "The {plan} plan includes {gb} GB of storage per workspace.",
            "Each workspace on {plan} gets {gb} GB of storage.",
            "Your {plan} plan comes with {gb} GB in total.",
        ],
        "a2": [
            ("Uploads are blocked once you reach the limit, but existing files stay available."),
            ("At the limit new uploads fail, while everything already stored can still be opened."),
            "When you are full, nothing is deleted; you just cannot upload more.",
        ],
        "extras": [
            [
                "See what uses the space in Settings > Storage.",
                "Settings > Storage lists the largest files and projects.",
            ],
            [
                "Emptying the trash frees space right away.",
                "Files in the trash still count until the trash is emptied.",
            ],
            [
                "Extra storage is sold in {step} GB blocks.",
                "You can add storage in blocks of {step} GB from Billing.",
            ],
        ],
        "values": {
            "plan": ["Starter", "Team", "Business"],
            "gb": ["10", "50", "100", "250"],
            "step": ["50", "100"],
        },
    },
    {
        "q": [
            "How do I connect {chat}?",
            "Notifications are not showing up in {chat}.",
            "Can we get alerts in {chat}?",
        ],
        "a1": [
            "Go to Settings > Integrations, choose {chat} and approve the permissions.",
            "Open Settings > Integrations, click {chat} and sign in to authorize the app.",
            ("Connect {chat} from Settings > Integrations and accept the requested permissions."),
        ],
        "a2": [
            "Then pick the channel for each project under Notifications.",
            "After that, choose a channel per project in the Notifications tab.",
            "Each project can post to its own channel, which you set under Notifications.",
        ],
        "extras": [
            [
                "Private channels need the app to be invited first.",
                "For a private channel, invite the app to it before selecting it.",
            ],
            [
                (
                    "If messages stopped, reconnect the integration; it breaks when the person who "
                    "installed it leaves."
                ),
                (
                    "Messages stop when the person who installed the app leaves, so reconnect it "
                    "with another admin."
                ),
            ],
        ],
        "values": {"chat": ["Slack", "Microsoft Teams"]},
    },
    {
        "q": [
            "The {os} app is not syncing.",
            "Changes on my phone don't show up on the web.",
            "Why is the mobile app out of date?",
        ],
        "a1": [
            "First check that you are on the latest version of the {os} app, at least {ver}.",
            "Update the {os} app to version {ver} or newer.",
            "Make sure the {os} app is updated to {ver} or later.",
        ],
        "a2": [
            "Then pull down on the project list to force a sync.",
            "After updating, pull to refresh on the home screen.",
            "Next, force a sync by pulling down on the list of projects.",
        ],
        "extras": [
            [
                "If it still fails, sign out and back in to rebuild the local cache.",
                "Signing out and in again clears the local cache.",
            ],
            [
                "Low power mode can pause background sync on {os}.",
                "Background sync is paused while {os} is in low power mode.",
            ],
            [
                "Send us the sync log from Settings > About if the problem continues.",
                "Still stuck? Attach the sync log from Settings > About to a ticket.",
            ],
        ],
        "values": {"os": ["iOS", "Android"], "ver": ["5.12", "5.14", "6.0"]},
    },
    {
        "q": [
            "How do I use my own domain?",
            "How do I set up a custom domain for our portal?",
            "Can our help center run on our domain?",
        ],
        "a1": [
            "Add a CNAME record for your subdomain pointing to {target}.",
            "Create a CNAME from your subdomain to {target} at your DNS provider.",
            "At your DNS host, point a CNAME for the subdomain at {target}.",
        ],
        "a2": [
            "Then enter the domain in Settings > Domains and click Verify.",
            "Next, add the domain under Settings > Domains and press Verify.",
            "After that, verify it in Settings > Domains.",
        ],
        "extras": [
            [
                "We issue the TLS certificate automatically, which can take up to {hours} hours.",
                "The certificate is provisioned for you and may take {hours} hours to appear.",
            ],
            [
                "Root domains are not supported; use a subdomain such as help.yourcompany.com.",
                "Apex domains cannot be used, so pick a subdomain like docs.yourcompany.com.",
            ],
            [
                "Remove any CAA record that blocks our certificate authority.",
                "A CAA record that excludes Let's Encrypt will block the certificate.",
            ],
        ],
        "values": {
            "target": ["cname.example.net", "domains.example-edge.com"],
            "hours": ["1", "24"],
        },
    },
    {
        "q": [
            "How do I change my email address?",
            "Can I update the email on my account?",
            "I changed jobs, how do I move my account to a new email?",
        ],
        "a1": [
            "Go to Profile > Account and click Change next to your email.",
            "Open your Profile, choose Account and edit the email field.",
            "You can change it in Profile > Account.",
        ],
        "a2": [
            (
                "We send a confirmation link to the new address, and the change applies once "
                "you click it."
            ),
            (
                "Confirm the new address from the email we send; until then the old one stays "
                "active."
            ),
            "The new email takes effect after you confirm it from the link we send.",
        ],
        "extras": [
            [
                "If your workspace uses SSO, the email is managed by your identity provider.",
                "SSO users need their admin to update the email in the identity provider.",
            ],
            [
                "Your projects and history stay with the account.",
                "Nothing is lost: projects and history move with you.",
            ],
        ],
        "values": {},
    },
    {
        "q": [
            "Where can I see who changed what?",
            "Do you have audit logs?",
            "How long do you keep audit logs?",
        ],
        "a1": [
            (
                "Audit logs are in Settings > Security > Audit log on the Business and "
                "Enterprise plans."
            ),
            "Business and Enterprise workspaces have an audit log under Settings > Security.",
            (
                "You can find the audit log in Settings > Security if you are on Business or "
                "Enterprise."
            ),
        ],
        "a2": [
            (
                "They record sign-ins, permission changes, exports and deletions, and are kept "
                "for {days} days."
            ),
            ("Every sign-in, role change, export and deletion is logged and kept for {days} days."),
            (
                "Entries cover logins, permission changes, exports and deletions, with {days} "
                "days of retention."
            ),
        ],
        "extras": [
            [
                "You can export the log as CSV or stream it to your SIEM.",
                "Logs can be downloaded as CSV or streamed to a SIEM.",
            ],
            ["Only admins can view the audit log.", "The log is visible to admins only."],
        ],
        "values": {"days": ["90", "180", "365"]},
    },
    {
        "q": [
            "Dates show the wrong time zone.",
            "How do I change my time zone?",
            "Why are due dates off by a few hours?",
        ],
        "a1": [
            (
                "Set your time zone in Profile > Preferences; it defaults to the one your "
                "browser reported at sign-up."
            ),
            (
                "Open Profile > Preferences and pick your time zone, which was taken from your "
                "browser when you joined."
            ),
            (
                "Your time zone lives in Profile > Preferences and was set from the browser at "
                "sign-up."
            ),
        ],
        "a2": [
            "Due dates are shown in each viewer's own time zone.",
            "Everyone sees due dates in their own time zone.",
            "Each person sees dates converted to their time zone.",
        ],
        "extras": [
            [
                "Workspace admins can set a default time zone for reports in Settings > General.",
                "Reports use the workspace time zone, which admins set in Settings > General.",
            ],
            [
                "Date format follows your language setting.",
                "The date format comes from your language preference.",
            ],
        ],
        "values": {},
    },
    {
        "q": [
            "How do I import data from a spreadsheet?",
            "Can I upload a CSV of tasks?",
            "My CSV import failed.",
        ],
        "a1": [
            "Use Import > CSV in the project menu and map each column to a field.",
            "Open the project menu, choose Import > CSV and match your columns to fields.",
            "From the project menu pick Import, then CSV, and map the columns.",
        ],
        "a2": [
            "Files can have up to {rows} rows and must be UTF-8 encoded.",
            "The limit is {rows} rows per file, saved as UTF-8.",
            "Keep files under {rows} rows and save them as UTF-8.",
        ],
        "extras": [
            ["Dates must be in YYYY-MM-DD format.", "Use YYYY-MM-DD for every date column."],
            [
                "Rows that fail are listed in an error report you can download.",
                "You get a downloadable report of any rows that could not be imported.",
            ],
            [
                "Imports run in the background, so you can keep working.",
                "You can keep working while the import runs.",
            ],
        ],
        "values": {"rows": ["10,000", "50,000"]},
    },
]

SUPPORT_SYNONYMS: dict[str, list[str]] = {
    "choose": ["select", "pick"],
    "select": ["choose"],
    "pick": ["choose", "select"],
    "click": ["press", "hit"],
    "press": ["click"],
    "link": ["URL"],
    "within": ["in"],
    "usually": ["typically", "normally"],
    "typically": ["usually"],
    "immediately": ["right away"],
    "can": ["may"],
    "removed": ["deleted"],
    "deleted": ["removed"],
    "again": ["once more"],
    "enter": ["type"],
    "every": ["each"],
    "get": ["receive"],
    "receive": ["get"],
    "ready": ["done"],
}

SUPPORT_OPENERS = ["Happy to help! ", "Sure. ", "Good question. "]
SUPPORT_CLOSERS = [" Let me know if anything else comes up.", " Hope that helps!"]
N_SUPPORT = 150
SUPPORT_BUILDS = ("2026-11-24_1a2b3c", "2026-11-28_5d6e7f")
SUPPORT_RUNS = 3


def support_grammar(topic: Mapping[str, object], rng: Random) -> Grammar:
    """One example's grammar: the topic's wordings, its fixed facts and chosen extras."""
    grammar: Grammar = {}
    core = [key for key in ("a1", "a2", "a3") if key in topic]
    for key in ["q", *core]:
        grammar[key] = list(topic[key])  # type: ignore[call-overload]
    extras = list(topic["extras"])  # type: ignore[call-overload]
    chosen = sorted(rng.sample(range(len(extras)), rng.randint(0, min(2, len(extras)))))
    for position, extra in enumerate(chosen):
        grammar[f"x{position}"] = list(extras[extra])
    values = topic["values"]
    assert isinstance(values, dict)
    for key, options in values.items():
        grammar[key] = [rng.choice(options)]
    slots = [*core, *(f"x{i}" for i in range(len(chosen)))]
    grammar["root"] = [" ".join(f"{{{slot}}}" for slot in slots)]
    return grammar


def support_suite() -> dict[str, str]:
    """All files of the support suite, by relative path."""
    order = [i % len(TOPICS) for i in range(N_SUPPORT)]
    rng_for("support", "topics").shuffle(order)
    references: list[dict[str, str]] = []
    outputs: dict[str, dict[str, str]] = {name: {} for name in SUPPORT_BUILDS}
    seen: set[str] = set()
    for index, topic_index in enumerate(order, 1):
        example_id = f"sup-{index:04d}"
        rng = rng_for("support", example_id)
        while True:
            grammar = support_grammar(TOPICS[topic_index], rng)
            renderer = Renderer(grammar, rng)
            reference = tidy(renderer.render("{root}"))
            if reference not in seen and 15 <= word_count(reference) <= 70:
                break
        seen.add(reference)
        question = tidy(renderer.render("{q}"))
        references.append({"id": example_id, "input": question, "reference": reference})
        # The model's answer: the same facts, partly in other words, sometimes chattier.
        answer = paraphrase(
            grammar, rng, renderer.picks, 0.45, swaps=rng.randint(0, 1), synonyms=SUPPORT_SYNONYMS
        )
        if rng.random() < 0.1:
            answer = rng.choice(SUPPORT_OPENERS) + answer
        if rng.random() < 0.1:
            answer += rng.choice(SUPPORT_CLOSERS)
        # The newer build is the same model on the same prompts: only sampling noise differs.
        for build in SUPPORT_BUILDS:
            outputs[build][example_id] = answer
    files = {
        "suite.toml": (
            "# Generated by sample_suites/generate.py: edit the script, not this file.\n"
            'name = "Support answers"\n'
            'metric = "rougeL"\n'
            'tokenizer = "rouge-score"\n'
            "stem = false\n"
            "\n"
            "[band]\n"
            "k = 2.0\n"
        ),
        "references.jsonl": jsonl(sorted(references, key=lambda row: row["id"])),
    }
    # Replicate runs: sampling noise, a word swapped here and there, different per run.
    for build in SUPPORT_BUILDS:
        for run in range(1, SUPPORT_RUNS + 1):
            noisy = {}
            for example_id, text in outputs[build].items():
                rng = rng_for("support", build, run, example_id)
                draw = rng.random()
                swaps = 2 if draw < 0.08 else 1 if draw < 0.4 else 0
                noisy[example_id] = reword(text, rng, swaps, SUPPORT_SYNONYMS)
            files[f"builds/{build}/run-{run}.jsonl"] = outputs_jsonl(noisy)
    return files


# ---------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------


def jsonl(rows: Iterable[Mapping[str, object]]) -> str:
    """One JSON object per line, UTF-8 text kept as written, a newline after each line."""
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def outputs_jsonl(outputs: Mapping[str, str]) -> str:
    """A build file: ``{"id", "output"}`` per line, sorted by id."""
    return jsonl({"id": key, "output": outputs[key]} for key in sorted(outputs))


SUITES: dict[str, Callable[[], dict[str, str]]] = {
    "incident-summaries": incident_suite,
    "support-answers": support_suite,
}


def write_suites(out: Path) -> list[Path]:
    """Write every suite under `out`; return the files written, sorted."""
    written = []
    for suite_name, build in SUITES.items():
        for relative, text in sorted(build().items()):
            path = out / suite_name / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            written.append(path)
    return sorted(written)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``generate.py [--out DIR]``."""
    here = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--out", type=Path, default=here, help="output folder (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    for path in write_suites(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
