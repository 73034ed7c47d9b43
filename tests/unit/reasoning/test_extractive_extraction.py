"""Evidence extraction: the sentence that answers the sub-question comes first, quoted exactly."""

from __future__ import annotations

from research_assistant.reasoning.extractive.extraction import extract_evidence
from research_assistant.reasoning.extractive.vectors import Embedder
from research_assistant.schemas import Passage, SubQuestion

SYS_DOCS = Passage(
    source_id="S-sys",
    chunk_id="sys#1",
    score=0.92,
    text=(
        "sys.getrecursionlimit()\n"
        "Return the current value of the recursion limit, the maximum depth of the Python interpreter stack. "
        "This limit prevents infinite recursion from causing an overflow of the C stack and crashing Python. "
        "It can be set by setrecursionlimit().\n\n"
        "sys.setrecursionlimit(limit)\n"
        "Set the maximum depth of the Python interpreter stack to limit.\n\n"
        "The highest possible limit is platform-dependent. A user may need to set the limit higher when they "
        "have a program that requires deep recursion and a platform that supports a higher limit."
    ),
)
BLOG = Passage(
    source_id="S-blog",
    chunk_id="blog#0",
    score=0.81,
    text=(
        "Understanding Python's Recursion Limit\n\n"
        "Recursion is when a function calls itself. Every call adds a frame to the call stack.\n\n"
        "By default, Python sets the recursion limit to 1000 to protect against stack overflows. If a "
        "recursive function goes deeper than that, the interpreter raises a RecursionError."
    ),
)
WIKI = Passage(
    source_id="S-wiki",
    chunk_id="wiki#3",
    score=0.55,
    text=(
        "Python is a high-level, general-purpose programming language. Its design philosophy emphasizes code "
        "readability with the use of significant indentation. Python is dynamically typed and garbage-collected."
    ),
)
COOKING = Passage(
    source_id="S-cooking",
    chunk_id="cook#0",
    score=0.2,
    text="Simmer the onions slowly until they turn golden. Season the soup with salt and pepper before serving.",
)
TCP_UDP = Passage(
    source_id="S-net",
    chunk_id="net#0",
    score=0.9,
    text=(
        "TCP vs UDP\n\n"
        "The TCP header is 20 bytes long, while the UDP header is only 8 bytes. "
        "Transmission Control Protocol (TCP) is a connection-oriented protocol that guarantees that data "
        "arrives in order and without loss. User Datagram Protocol (UDP) is a connectionless protocol. "
        "TCP is the better choice when every byte must arrive, for example for web pages and email."
    ),
)
QUESTION = "What is the default recursion limit in Python?"


def extract(question: str, sub_question: str, passages: list[Passage], limit: int = 3) -> list:
    return extract_evidence(question, SubQuestion(id="q1", text=sub_question), passages, limit, Embedder())


def test_the_sentence_that_states_the_answer_comes_first() -> None:
    evidence = extract(QUESTION, QUESTION, [SYS_DOCS, BLOG, WIKI, COOKING])
    assert (
        evidence[0].claim == "By default, Python sets the recursion limit to 1000 to protect against stack overflows."
    )
    assert evidence[0].source_id == "S-blog"
    assert evidence[0].score == max(e.score for e in evidence)


def test_quotes_are_exact_substrings_and_claims_collapse_whitespace() -> None:
    passages = [SYS_DOCS, BLOG, WIKI, COOKING, TCP_UDP]
    for question in [QUESTION, "How do I increase the recursion limit in Python?", "What is TCP?"]:
        for item in extract(question, question, passages, limit=6):
            source_text = next(p.text for p in passages if p.source_id == item.source_id)
            assert item.quote in source_text
            assert item.claim == " ".join(item.quote.split())
            assert item.sub_question_id == "q1"
            assert 0.0 <= item.score <= 1.0


def test_unrelated_text_is_never_evidence() -> None:
    assert extract(QUESTION, QUESTION, [COOKING]) == []
    assert all(e.source_id != "S-cooking" for e in extract(QUESTION, QUESTION, [SYS_DOCS, COOKING], limit=10))


def test_limit_and_stable_unique_ids() -> None:
    first = extract(QUESTION, QUESTION, [SYS_DOCS, BLOG, WIKI], limit=2)
    again = extract(QUESTION, QUESTION, [SYS_DOCS, BLOG, WIKI], limit=2)
    assert len(first) == 2
    assert first == again
    assert len({e.id for e in extract(QUESTION, QUESTION, [SYS_DOCS, BLOG, WIKI], limit=10)}) == len(
        extract(QUESTION, QUESTION, [SYS_DOCS, BLOG, WIKI], limit=10)
    )


def test_the_same_sentence_in_overlapping_chunks_is_quoted_once() -> None:
    overlap = Passage(source_id="S-blog", chunk_id="blog#1", score=0.7, text=BLOG.text[40:])
    claims = [e.claim for e in extract(QUESTION, QUESTION, [BLOG, overlap], limit=5)]
    assert len(claims) == len(set(claims))


def test_sources_are_varied_when_they_are_about_as_relevant() -> None:
    evidence = extract(QUESTION, QUESTION, [SYS_DOCS, BLOG], limit=2)
    assert {e.source_id for e in evidence} == {"S-sys", "S-blog"}


def test_a_definition_answers_what_is() -> None:
    evidence = extract("What is the difference between TCP and UDP?", "What is TCP?", [TCP_UDP])
    assert evidence[0].claim.startswith("Transmission Control Protocol (TCP) is a connection-oriented protocol")
    assert all("UDP) is a connectionless" not in e.claim for e in evidence)  # about UDP, not TCP


def test_a_pronoun_sentence_keeps_the_sentence_it_refers_to() -> None:
    evidence = extract(
        "How can the recursion limit be changed in Python?",
        "How can the recursion limit be changed in Python?",
        [SYS_DOCS],
        limit=5,
    )
    quotes = [e.quote for e in evidence if "It can be set by setrecursionlimit()." in e.quote]
    assert quotes, "the sentence naming the setter is evidence"
    assert quotes[0].startswith("This limit prevents infinite recursion")
    assert quotes[0] in SYS_DOCS.text


def test_an_api_description_keeps_its_signature_line() -> None:
    evidence = extract(
        "How do I set the maximum depth of the Python interpreter stack?",
        "How do I set the maximum depth of the Python interpreter stack?",
        [SYS_DOCS],
    )
    assert (
        evidence[0].quote
        == "sys.setrecursionlimit(limit)\nSet the maximum depth of the Python interpreter stack to limit."
    )
    assert (
        evidence[0].claim
        == "sys.setrecursionlimit(limit) Set the maximum depth of the Python interpreter stack to limit."
    )


def test_no_passages_or_no_room_gives_no_evidence() -> None:
    assert extract(QUESTION, QUESTION, []) == []
    assert extract(QUESTION, QUESTION, [BLOG], limit=0) == []
