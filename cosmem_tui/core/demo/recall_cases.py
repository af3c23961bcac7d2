"""The demo's planted recall cases: a thread where "it forgot what I told it" has answers.

In ``fabrikam``'s thread ``RECALL_THREAD`` a user told the support agent, over nine
days, how to follow up on their tickets; the last turn (``QUERY``) asks how the agent
will follow up. The lab schema's retrieval (scope: the thread; filter: not superseded;
k = 10; cosine over the 8-dimension ``/embedding``) run with that turn's embedding
(``--like``) finds some of what the user said and misses the rest, one reason each:

* ``found``: the preference itself, within the top k;
* ``expired``: a 1-day ``ttl`` that passed days before the demo's anchor;
* ``nested``: its embedding is inside its first message (``/messages/0/embedding``),
  none at the policy's path (seed 000's silent pitfall);
* ``wrong_dimensions``: a 7-dimension embedding against the 8-dimension policy;
* ``superseded``: an old fact whose ``superseded_by`` names the fact that replaced it;
* ``below_k``: ranked 11th (k + 1): the query turn itself is rank 1, as the agent's
  own ``ORDER BY VectorDistance`` ranks it;
* ``out_of_scope``: said in another thread of the same tenant (``RECALL_OTHER_THREAD``).

Every embedding comes from ``DemoEmbedder`` over the item's text; the ranks follow from
those texts (``tests/core/test_demo_recall.py`` computes them). No item here carries a
``ttl`` but the expired one (the container's default is -1), so the ranks do not move
as time passes after the demo is built. The ids are written into the demo manifest
(``DemoManifest.recall``) for tests, docs and the README.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from cosmem_tui.core.demo.embedder import DemoEmbedder

RECALL_TENANT = "fabrikam"
RECALL_THREAD = "thr-follow-up-prefs"
RECALL_OTHER_THREAD = "thr-phone-or-email"
RECALL_K = 10  # the lab schema's retrieval k
DAY, HOUR = 86_400, 3_600

QUERY = "turn-ask-follow-up"
FOUND = "turn-email-follow-ups"
EXPIRED = "turn-urgent-text-first"
NESTED = "turn-copy-manager"
WRONG_DIMENSIONS = "turn-german-emails"
SUPERSEDED = "fact-phone-follow-ups"
REPLACEMENT = "fact-email-over-phone"
BELOW_K = "turn-work-address"
OUT_OF_SCOPE = "turn-never-phone"

# (id or None for a generated uuid, kind, user text, agent text): the thread in order.
# Fillers are the other things the user asked about in the same thread; their texts
# decide the ranks, so changing one is a change of the planted cases (the test says).
_THREAD: tuple[tuple[str | None, str, str, str], ...] = (
    (
        None,
        "turn",
        "The invoice for March shows an error when I try to download it.",
        "I re-sent the invoice to your inbox.",
    ),
    (SUPERSEDED, "fact", "Fact: User prefers a phone call for ticket follow-ups.", ""),
    (None, "turn", "Can you reset my password before Friday?", "Done, the password is reset."),
    (
        FOUND,
        "turn",
        "Please send follow-ups about my tickets by email, not phone.",
        "Noted: ticket follow-ups go by email only.",
    ),
    (REPLACEMENT, "fact", "Fact: User prefers email over phone for ticket follow-ups.", ""),
    (
        None,
        "turn",
        "My booking was moved yesterday, what happened?",
        "An automated rule moved it; I've reverted that.",
    ),
    (
        EXPIRED,
        "turn",
        "For urgent tickets, text my mobile before you send the email.",
        "Got it, urgent tickets get a text first.",
    ),
    (
        None,
        "turn",
        "What's the status of the ticket for the finance group?",
        "The ticket is with billing; expect an answer within a day.",
    ),
    (
        NESTED,
        "turn",
        "Copy my manager on every email follow-up about billing tickets.",
        "Will do: your manager is copied on billing follow-ups.",
    ),
    (
        None,
        "turn",
        "Is it possible to export reports in bulk?",
        "You can export them from Settings, Reports, Manage.",
    ),
    (
        WRONG_DIMENSIONS,
        "turn",
        "Send my follow-up emails in German, please.",
        "Understood, follow-up emails will be in German.",
    ),
    (
        None,
        "turn",
        "Please remind me what we decided about the license.",
        "Per our earlier conversation, the license stays as agreed until March.",
    ),
    (
        BELOW_K,
        "turn",
        "Email follow-ups should go to my work address, not my personal one.",
        "Understood, I'll use your work address.",
    ),
    (
        None,
        "turn",
        "I opened a ticket about the dashboard last week.",
        "I see ticket #48213 with the platform team.",
    ),
    (
        None,
        "turn",
        "The shipment for our EU office is late.",
        "I've asked logistics to check the shipment.",
    ),
    (
        None,
        "turn",
        "My subscription renews on the 1st, can I change the payment method?",
        "You can change it from Settings, Payment, Manage.",
    ),
    (
        None,
        "turn",
        "Is my ticket about the backup resolved yet?",
        "Not yet; the backup ticket is still open.",
    ),
    (
        None,
        "turn",
        "Please cancel the duplicated order.",
        "Done, the duplicated order is cancelled.",
    ),
    (None, "turn", "Who resolved my last ticket?", "Support tier 2 resolved it on Friday."),
    (
        None,
        "turn",
        "How do I share the calendar with a new hire?",
        "Share it from Settings, Calendar, Manage.",
    ),
    (
        None,
        "turn",
        "I'll be out next week, the project can wait.",
        "Understood, I'll pause the project reminders.",
    ),
    (
        None,
        "turn",
        "Remind me when the contract is up for renewal.",
        "I'll remind you a month before the contract renews.",
    ),
    (
        QUERY,
        "turn",
        "How will you follow up on my ticket once it is resolved?",
        "Let me check how you asked to be contacted.",
    ),
)
_OTHER_THREAD = (
    (OUT_OF_SCOPE, "turn", "Always follow up by email, I never pick up the phone.", "Understood."),
)

# item(tenant, thread, index, ts, **fields) -> body: the generator's writer.
MakeItem = Callable[..., dict[str, Any]]


def manifest_entry() -> dict[str, str]:
    """Where the cases are (``DemoManifest.recall``): the reason → the item's id."""
    return {
        "tenant": RECALL_TENANT,
        "thread": RECALL_THREAD,
        "other_thread": RECALL_OTHER_THREAD,
        "k": str(RECALL_K),
        "query": QUERY,
        "found": FOUND,
        "expired": EXPIRED,
        "no_embedding_at_path": NESTED,
        "wrong_dimensions": WRONG_DIMENSIONS,
        "filtered": SUPERSEDED,
        "superseded_by": REPLACEMENT,
        "ranked_below_k": BELOW_K,
        "out_of_scope": OUT_OF_SCOPE,
    }


def recall_items(
    item: MakeItem, iso: Callable[[float], str], anchor: int
) -> Iterator[dict[str, Any]]:
    """The two planted threads' items, oldest first, built by the generator's writer."""
    embedder, seven = DemoEmbedder(), DemoEmbedder(dimensions=7)
    start = anchor - 9 * DAY
    step = (9 * DAY - HOUR) / (len(_THREAD) - 1)
    for index, (item_id, kind, user, agent) in enumerate(_THREAD):
        at = int(start + index * step)
        yield _body(
            item, iso, RECALL_THREAD, index, at, item_id, kind, user, agent, embedder, seven
        )
    for index, (item_id, kind, user, agent) in enumerate(_OTHER_THREAD):
        at = anchor - 5 * DAY
        yield _body(
            item, iso, RECALL_OTHER_THREAD, index, at, item_id, kind, user, agent, embedder, seven
        )


def _body(
    item: MakeItem,
    iso: Callable[[float], str],
    thread: str,
    index: int,
    at: int,
    item_id: str | None,
    kind: str,
    user: str,
    agent: str,
    embedder: DemoEmbedder,
    seven: DemoEmbedder,
) -> dict[str, Any]:
    text = f"{user} {agent}".strip()
    fields: dict[str, Any] = {}
    if kind == "fact":
        fields["type"] = "fact"
        messages: list[dict[str, Any]] = [{"role": "system", "content": user, "timestamp": iso(at)}]
    else:
        messages = [
            {"role": "user", "content": user, "timestamp": iso(at)},
            {
                "role": "agent",
                "content": agent,
                "entityId": "support-agent",
                "timestamp": iso(at + 4),
            },
        ]
    fields["messages"] = messages
    fields["content"] = text
    if item_id == NESTED:
        messages[0]["embedding"] = embedder.vector(text)  # where the policy does not look
    elif item_id == WRONG_DIMENSIONS:
        fields["embedding"] = seven.vector(text)
    else:
        fields["embedding"] = embedder.vector(text)
    if item_id == EXPIRED:
        fields["ttl"] = DAY  # written about 6.5 days before the anchor: gone since
    if item_id == SUPERSEDED:
        fields["superseded_by"] = REPLACEMENT
    body = item(RECALL_TENANT, thread, index, at + 4, **fields)
    body["id"] = item_id or body["id"]
    return body
