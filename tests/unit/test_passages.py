"""Retrieved chunks are widened by whole paragraphs from their document, so an answer cut off by a chunk
boundary is still read."""

from __future__ import annotations

from research_assistant.knowledge.passages import keyed_passages, paragraphs_where, sections_headed, widen_passages
from research_assistant.schemas import Passage

DOCUMENT = (
    "hash-based pyc\n\nA bytecode cache file that uses the hash of the source.\n\n"
    "hashable\n\nAn object is hashable if it has a hash value which never changes during its lifetime.\n\n"
    "Hashability makes an object usable as a dictionary key.\n\n"
    "Most immutable built-in objects are hashable.\n\n"
    "IDLE\n\nAn Integrated Development and Learning Environment for Python."
)


def _chunk(text: str, score: float = 0.5, source: str = "glossary") -> Passage:
    return Passage(source_id=source, text=text, score=score, start=DOCUMENT.find(text))


def test_a_chunk_gains_the_paragraphs_around_it_and_stays_an_exact_span() -> None:
    chunk = _chunk("Hashability makes an object usable as a dictionary key.")
    [wide] = widen_passages([chunk], {"glossary": DOCUMENT}.get, margin=120)
    assert "An object is hashable if it has a hash value" in wide.text
    assert wide.text in DOCUMENT
    assert wide.start == DOCUMENT.find(wide.text)
    assert not wide.text.startswith(("ashable", "n object"))  # whole paragraphs, never cut inside one


def test_overlapping_windows_of_one_document_merge_into_the_better_ranked_one() -> None:
    first = _chunk("Hashability makes an object usable as a dictionary key.", score=0.9)
    second = _chunk("Most immutable built-in objects are hashable.", score=0.2)
    merged = widen_passages([first, second], {"glossary": DOCUMENT}.get, margin=120)
    assert len(merged) == 1
    assert merged[0].score == 0.9
    assert "Hashability" in merged[0].text and "Most immutable" in merged[0].text


def test_a_passage_without_its_document_text_is_kept_as_it_is() -> None:
    web = Passage(source_id="page", text="Only the snippet is known.", score=0.4)
    assert widen_passages([web], lambda _: None) == [web]


GC_PAGE = (
    "Garbage Collector interface\n\n"
    "The collector is re-evaluated to see if the threshold was exceeded after every allocation of a container.\n\n"
    "gc.get_stats() returns a list of dictionaries, one per generation, containing the following items:\n\n"
    "collections is the number of times this generation was collected;\n\n"
    "collected is the total number of objects collected inside this generation;\n\n"
    "Prev | Up | Home | Next\n\n"
    "Warning\n\n"
)


def _at(text: str) -> Passage:
    return Passage(source_id="gc", text=text, score=0.5, start=GC_PAGE.find(text))


def test_a_chunk_cut_mid_sentence_is_widened_to_the_whole_sentence() -> None:
    [wide] = widen_passages([_at("re-evaluated to see if the")], {"gc": GC_PAGE}.get, margin=0)
    assert wide.text.startswith("The collector is re-evaluated")
    assert wide.text.endswith("allocation of a container.")


def test_list_items_get_their_lead_in_and_navigation_and_a_dangling_heading_go() -> None:
    chunk = GC_PAGE[GC_PAGE.find("collections is") :]
    [wide] = widen_passages([_at(chunk)], {"gc": GC_PAGE}.get, margin=0)
    assert wide.text.startswith("gc.get_stats() returns a list of dictionaries")
    assert "Prev | Up" not in wide.text
    assert not wide.text.rstrip().endswith("Warning")


STRUCT_PAGE = (
    "Format Characters\n\n"
    "Format characters have the following meaning.\n\n"
    "Format | C Type | Standard size\n\n"
    "b | signed char | 1\n\n"
    "h | short | 2\n\n"
    "q | long long | 8\n\n"
    "Notes\n\n"
    "%ar\n\nauthor date, relative\n\n"
    "%at\n\nauthor date, UNIX timestamp"
)


def test_a_row_keyed_by_a_name_the_question_uses_is_found_with_its_tables_header() -> None:
    [row] = keyed_passages({"h"}, ["struct"], {"struct": STRUCT_PAGE}.get)
    assert row.text.startswith("Format | C Type | Standard size")
    assert row.text.endswith("h | short | 2")
    assert STRUCT_PAGE[row.start :].startswith(row.text)


def test_a_term_line_keyed_by_the_name_brings_its_entry() -> None:
    [entry] = keyed_passages({"%ar"}, ["log"], {"log": STRUCT_PAGE}.get)
    assert entry.text == "%ar\n\nauthor date, relative"
    assert keyed_passages(set(), ["log"], {"log": STRUCT_PAGE}.get) == []
    assert keyed_passages({"zz"}, ["log"], {"log": STRUCT_PAGE}.get) == []


def test_the_paragraphs_a_test_accepts_become_passages_that_are_exact_spans() -> None:
    document = (
        "Overview\n\nThe TOAST system (The Oversized-Attribute Storage Technique) stores wide values.\n\nTOAST is used."
    )
    found = paragraphs_where(lambda paragraph: "(" in paragraph, ["doc"], {"doc": document}.get)
    assert [p.text for p in found] == [
        "The TOAST system (The Oversized-Attribute Storage Technique) stores wide values."
    ]
    assert document[found[0].start :].startswith(found[0].text)
    assert paragraphs_where(lambda paragraph: True, ["missing"], {}.get) == []


def test_the_opening_of_a_section_headed_by_a_term_is_a_passage_for_its_definition() -> None:
    document = (
        "8.3. Host Reservations\n\nA shared network may hold reservations.\n\n"
        "8.4. Shared Networks in DHCPv4\n\nDHCP servers use subnet information in two ways. "
        'This capability is called "shared networks".\n\n'
        "Shared network settings are inherited."
    )
    found = sections_headed("shared network", ["doc"], {"doc": document}.get)
    assert [p.text.split("\n\n")[0] for p in found] == ["8.4. Shared Networks in DHCPv4"]
    assert 'called "shared networks"' in found[0].text
    assert document[found[0].start :].startswith(found[0].text)
    assert sections_headed("shared net", ["doc"], {"doc": document}.get) == []  # whole words only


CODE_PAGE = (
    "What to return from a function\n\n"
    "Note that integers will also be returned as floats:\n\n"
    '>>> e("float()")\n1.7\n>>> e("int()")\n1.0\n>>> int( e("int()") )\n1\n\n'
    "As the last example shows, you can pass the results back.\n\n"
    "Prev | Up | Home | Next\n\n25.1.6\n\n"
)


def test_a_bare_number_is_content_unless_it_stands_beside_navigation() -> None:
    chunk = Passage(source_id="ext", text="Note that integers will also be returned as floats:", score=0.5, start=30)
    [wide] = widen_passages([chunk], {"ext": CODE_PAGE}.get, margin=200)
    assert '>>> e("float()")\n1.7\n>>> e("int()")\n1.0' in wide.text  # a code example's output stays
    assert "25.1.6" not in wide.text and "Prev | Up" not in wide.text  # a section number beside a breadcrumb goes
