#!/usr/bin/env python
"""Scale benchmark: indexing, re-sync, query latency, end-to-end runs and memory at 100 to 5,000 documents.

For each corpus size this script

1. generates a synthetic Markdown corpus (deterministic for a seed): encyclopedia-style articles about
   invented bridges, towns, companies, observatories, museums and ships, 300 to 1,500 words each, every one
   with planted facts (dates, figures, names) that a question can ask about, plus filler prose in a shared
   vocabulary and passing mentions of other entities, so retrieval has to tell near-identical articles apart.
   Document i is the same at every size, and every question is about one of the first 100 documents, so the
   same questions are asked of every corpus and only the number of distractors grows;
2. starts a fresh Python process for that size (so peak memory is that size's alone), which
   - builds the run's services exactly as the app does (`services_for`) over a fresh `research_db` and
     document cache under the work folder, and times the first full sync (`LocalCorpusProvider.prepare`),
   - times re-syncs with nothing changed,
   - times `ResearchRepository.retrieve` (k=20, corpus-wide, as a search does) and
     `LocalCorpusProvider.search` (limit 5) over the questions, and checks whether the right file is found,
   - times `run_research` end to end (after indexing; each run includes its own re-sync, as every run does)
     for a few questions at each depth, and checks each report: does it quote the planted fact, with a
     citation [n] whose Sources entry is the file that states it?
   - reads its peak RSS (`resource.getrusage(RUSAGE_SELF).ru_maxrss`) after each phase;
3. optionally runs the command line once in another fresh process (`research-assistant run ... --depth quick`)
   for the cold-start time a user sees, with that process's peak RSS (from `os.wait4`).

It prints a Markdown table and writes every measurement to JSON. Everything runs offline.

    python benchmarks/scale.py --sizes 100,1000,5000 --out benchmarks/results.json --workdir /tmp/ra-scale

This file is not a test: it is outside `tests/` and its name does not start with `test_`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
import traceback
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# -- synthetic corpus ------------------------------------------------------------------------------------------------


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_PREFIXES = _words(
    "Ald Ber Brenn Dal Ek Fal Gran Hal Hag Is Jar Kall Lind Mar Nor Ost Ros Sand Tor Ulf Vall Varn Vik Ask Bjor "
    "Ced Dun Elm Fur Gull Hed Holm Kil Lov Mos Nyl Orn Ped Rav Sko Stav Tal Tun Ved Yst Bran Karr Lerv Mell Sol "
    "Aur Bode Fjall Grim Ivar Lyng Rask Sten Tyr Odd"
)
_SUFFIXES = _words(
    "by berg holm vik dal stad sund ness ford havn lund mark torp vall kulla strand borg asen fjord heim rud "
    "ker nas hult sjo"
)
_FIRST = _words(
    "Ingrid Astrid Sigrid Maja Elin Karin Helga Freja Linnea Ebba Signe Tove Alva Greta Hedda Vera Nora Ida "
    "Erik Lars Nils Anders Gunnar Magnus Olof Sven Bertil Henrik Johan Leif Torsten Einar Arvid Viktor Emil "
    "Oskar Axel Harald Rune Stig"
)
_LAST = _words(
    "Holm Berg Lind Dahl Strand Ek Nyberg Sandell Falk Wiklund Norling Ahlgren Kvist Lundqvist Rask Bergman "
    "Hallberg Sjoberg Engstrom Akerlund Blom Forsell Granath Hedlund Isaksson Jonsson Karlsson Lofgren Moberg "
    "Nordin Olsson Palm Rosen Stenberg Tornqvist Ullman Vestin Wallin Ygberg Zetterlund"
)
_RIVERS = _words("Olme Vessla Kara Trosa Ljung Aska Brisa Dalsa Eldra Fjala Gimma Harra Isla Jolna Klara Lomma")
_DISTRICTS = _words("Kallmark Nordvall Osterlund Sandhed Torvik Ulfsta Vallby Askeberg Brennland Dunmark Elmhult")
_FUNDS = ("Ekstrand", "Nordic Heritage", "Hallberg Memorial", "County Culture", "Lindqvist Science", "Coastal Trust")
_DIRECTIONS = ("north", "south", "east", "west", "north-east", "south-west")
_MONTHS = _words("January February March April May June July August September October November December")
_COMPANY_NOUNS = ("Ironworks", "Textiles", "Shipping Company", "Brewery", "Instruments", "Paper Mill")
_MUSEUM_TOPICS = ("Maritime History", "Local History", "Natural History", "Textile Art", "Railways", "Modern Art")
_SHORT = {
    "bridge": "the bridge",
    "town": "the town",
    "company": "the company",
    "observatory": "the observatory",
    "museum": "the museum",
    "ship": "the ship",
}
_FOLDERS = {k: k[:-1] + "ies" if k.endswith("y") else k + "s" for k in _SHORT}


def _person(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"


def _date(rng: random.Random, first: int, last: int) -> tuple[str, int]:
    year = rng.randint(first, last)
    return f"{rng.randint(1, 28)} {rng.choice(_MONTHS)} {year}", year


@dataclass(frozen=True)
class Fact:
    """A planted fact: the question that asks for it, the answer as the document states it, and the file."""

    question: str
    answer: str
    file: str
    entity: str
    kind: str
    fact: str


def _facts(kind: str, name: str, rng: random.Random) -> list[tuple[str, str, str, str]]:
    """(fact key, answer, sentence stating it, question asking for it) for one entity."""
    out: list[tuple[str, str, str, str]] = []
    if kind == "bridge":
        opened, _ = _date(rng, 1890, 2019)
        length = f"{rng.randint(380, 4200):,} metres"
        engineer = _person(rng)
        cost = f"{rng.randint(40, 2400)} million crowns"
        traffic = f"{rng.randint(3, 60) * 1000 + rng.randint(1, 999):,} vehicles"
        out += [
            ("opened", opened, f"The {name} opened to traffic on {opened}.", f"When did the {name} open?"),
            (
                "length",
                length,
                f"The {name} is {length} long, with a main span of {rng.randint(90, 600)} metres.",
                f"How long is the {name}?",
            ),
            (
                "engineer",
                engineer,
                f"The {name} was designed by the engineer {engineer}.",
                f"Who designed the {name}?",
            ),
            (
                "cost",
                cost,
                f"Building the {name} cost {cost}, shared between the state and the county.",
                f"How much did the {name} cost to build?",
            ),
            (
                "traffic",
                traffic,
                f"On an average weekday about {traffic} cross the {name}.",
                f"How many vehicles cross the {name} on an average weekday?",
            ),
        ]
    elif kind == "town":
        charter = str(rng.randint(1150, 1899))
        population = f"{rng.randint(1200, 240000):,} inhabitants"
        area = f"{rng.randint(40, 9000) / 10:.1f} square kilometres"
        mayor = _person(rng)
        elevation = f"{rng.randint(3, 900)} metres above sea level"
        out += [
            (
                "charter",
                charter,
                f"{name} received its town charter in {charter}.",
                f"When did {name} receive its town charter?",
            ),
            (
                "population",
                population,
                f"At the last census, {name} had {population}.",
                f"What is the population of {name}?",
            ),
            ("area", area, f"The municipality of {name} covers {area}.", f"How large is the municipality of {name}?"),
            ("mayor", mayor, f"The current mayor of {name} is {mayor}.", f"Who is the mayor of {name}?"),
            ("elevation", elevation, f"The centre of {name} lies {elevation}.", f"At what elevation does {name} lie?"),
        ]
    elif kind == "company":
        founded = str(rng.randint(1790, 1995))
        founder = _person(rng)
        employees = f"{rng.randint(40, 18000):,} people"
        year = rng.randint(2015, 2023)
        revenue = f"{rng.randint(2, 390) / 10:.1f} billion crowns"
        out += [
            ("founded", founded, f"{name} was founded in {founded}.", f"When was {name} founded?"),
            ("founder", founder, f"The founder of {name} was {founder}.", f"Who founded {name}?"),
            ("employees", employees, f"{name} employs {employees}.", f"How many people does {name} employ?"),
            (
                "revenue",
                revenue,
                f"In {year}, {name} reported revenue of {revenue}.",
                f"What revenue did {name} report in {year}?",
            ),
        ]
    elif kind == "observatory":
        opened, _ = _date(rng, 1850, 2015)
        altitude = f"{rng.randint(120, 2900):,} metres above sea level"
        mirror = f"{rng.randint(30, 420)} centimetres"
        director = _person(rng)
        asteroids = f"{rng.randint(3, 480)} asteroids"
        out += [
            ("opened", opened, f"The {name} opened on {opened}.", f"When did the {name} open?"),
            ("altitude", altitude, f"The {name} stands {altitude}.", f"At what altitude is the {name}?"),
            (
                "mirror",
                mirror,
                f"The main telescope of the {name} is a reflector with a mirror of {mirror}.",
                f"How large is the mirror of the main telescope at the {name}?",
            ),
            ("director", director, f"The {name} is directed by {director}.", f"Who directs the {name}?"),
            (
                "asteroids",
                asteroids,
                f"Astronomers at the {name} have discovered {asteroids}.",
                f"How many asteroids have been discovered at the {name}?",
            ),
        ]
    elif kind == "museum":
        opened, _ = _date(rng, 1860, 2020)
        objects = f"{rng.randint(800, 900000):,} objects"
        year = rng.randint(2016, 2023)
        visitors = f"{rng.randint(2000, 600000):,} visitors"
        architect = _person(rng)
        out += [
            ("opened", opened, f"The {name} opened on {opened}.", f"When did the {name} open?"),
            (
                "objects",
                objects,
                f"The collection of the {name} comprises about {objects}.",
                f"How many objects are in the collection of the {name}?",
            ),
            (
                "visitors",
                visitors,
                f"In {year} the {name} received {visitors}.",
                f"How many visitors did the {name} receive in {year}?",
            ),
            (
                "architect",
                architect,
                f"The building of the {name} was designed by the architect {architect}.",
                f"Who designed the building of the {name}?",
            ),
        ]
    else:  # ship
        launched, _ = _date(rng, 1900, 2021)
        tonnage = f"{rng.randint(400, 90000):,} gross tons"
        passengers = f"{rng.randint(12, 3200):,} passengers"
        captain = _person(rng)
        out += [
            ("launched", launched, f"{name} was launched on {launched}.", f"When was {name} launched?"),
            ("tonnage", tonnage, f"{name} measures {tonnage}.", f"What is the gross tonnage of {name}?"),
            (
                "passengers",
                passengers,
                f"{name} can carry {passengers} and {rng.randint(0, 600)} cars.",
                f"How many passengers can {name} carry?",
            ),
            (
                "captain",
                captain,
                f"The first master of {name} was Captain {captain}.",
                f"Who was the first captain of {name}?",
            ),
        ]
    return out


_SECTIONS = {
    "bridge": ("History", "Design", "Construction", "Traffic", "Maintenance", "In culture"),
    "town": ("History", "Geography", "Economy", "Government", "Culture", "Transport"),
    "company": ("History", "Products", "Operations", "Ownership", "Workforce", "Environment"),
    "observatory": ("History", "Instruments", "Research", "Site", "Public outreach", "Staff"),
    "museum": ("History", "Building", "Collections", "Exhibitions", "Education", "Visitors"),
    "ship": ("History", "Design", "Service", "Routes", "Refits", "Incidents"),
}
_EVENTS = {
    "bridge": (
        "had its bearings replaced after cracks were found during an inspection",
        "was closed for {n} days for resurfacing of the deck",
        "received new lighting along the whole deck",
        "saw its toll abolished after the construction loan was repaid",
        "was repainted in its original grey-green colour",
        "got a separate lane for cyclists on the downstream side",
        "was fitted with sensors that record wind speed and deck movement",
        "was struck by a barge, which damaged one of the piers",
        "carried the first regular bus route across the river {river}",
        "was listed as a protected structure by the heritage board",
    ),
    "town": (
        "was largely destroyed by a fire that started in the harbour district",
        "was connected to the national railway network",
        "opened its first public library on the market square",
        "merged with {n} surrounding parishes into a single municipality",
        "built a new water treatment plant on the banks of the river {river}",
        "hosted the regional agricultural fair for the first time",
        "lost its status as the seat of the {district} district court",
        "saw its population fall as the sawmills closed",
        "restored the medieval church after decades of neglect",
        "opened a vocational college for forestry and fishing",
    ),
    "company": (
        "opened a second factory near the river {river}",
        "was listed on the regional stock exchange",
        "acquired a smaller competitor from {place}",
        "cut {n} per cent of its workforce during a recession",
        "introduced electric furnaces at its main plant",
        "began exporting to markets across the Baltic",
        "moved its head office to a new building by the harbour",
        "was fined by the environmental authority for discharges into the river {river}",
        "set up a research laboratory with {n} engineers",
        "celebrated its anniversary with an exhibition of its early products",
    ),
    "observatory": (
        "installed a new spectrograph on its main telescope",
        "began a long survey of variable stars",
        "was connected to the national research network",
        "replaced the wooden dome with one of aluminium",
        "hosted a conference on minor planets",
        "took part in an international campaign to observe a comet",
        "lost several nights of observation each month to light pollution from {place}",
        "trained {n} doctoral students in a single decade",
        "opened a visitor centre next to the main dome",
        "received a grant from the {fund} foundation for a new camera",
    ),
    "museum": (
        "acquired a large private collection from a family in {place}",
        "opened a new wing for temporary exhibitions",
        "was closed for {n} months for a renovation of its roof",
        "started a programme of school visits across the {district} district",
        "returned several objects to the communities they came from",
        "digitised its photographic archive",
        "received a grant from the {fund} foundation",
        "mounted a touring exhibition that travelled to {n} cities",
        "appointed its first full-time conservator",
        "moved its storage to a climate-controlled building outside town",
    ),
    "ship": (
        "was lengthened by {n} metres at a yard in {place}",
        "was transferred to the route between {place} and {place2}",
        "ran aground in fog near the mouth of the river {river}",
        "had her engines replaced with more economical diesel engines",
        "was chartered as an accommodation ship during a large fair",
        "was repainted in the colours of a new owner",
        "served as a troop transport for {n} months",
        "received a new bridge and navigation equipment",
        "was laid up for a winter because of low demand",
        "carried a record number of passengers during a summer festival",
    ),
}
_DESCRIPTIONS = {
    "bridge": (
        "The deck carries two traffic lanes in each direction and a shared path for cyclists and pedestrians.",
        "Its pylons are anchored in bedrock beneath the river bed.",
        "The approach viaducts rest on {n} concrete piers.",
        "Expansion joints at both abutments allow the deck to move with changes in temperature.",
        "The steel box girders were assembled on the shore and floated into position.",
        "Inspections of the cables take place every {n} months.",
        "Ice breakers protect the piers from drifting ice in early spring.",
        "The bridge replaced a ferry service that had operated for generations.",
    ),
    "town": (
        "The old town is laid out around a rectangular market square.",
        "Most residents work in services, in public administration or in the port.",
        "The river {river} divides the town into an older northern part and newer southern suburbs.",
        "Winters are long and snowy, while summers are mild and light.",
        "The town has {n} primary schools and one upper secondary school.",
        "A weekly market is held on Saturdays throughout the year.",
        "The surrounding countryside is dominated by spruce forest and small lakes.",
        "Regional buses connect the town with {place} several times a day.",
    ),
    "company": (
        "Its products are sold through a network of agents in {n} countries.",
        "The main plant runs in three shifts on weekdays.",
        "A family foundation still holds a controlling stake in the company.",
        "The company buys most of its raw materials from suppliers in the {district} district.",
        "Apprentices train for {n} years before they are employed on the shop floor.",
        "Quality control laboratories test samples from every production batch.",
        "The company publishes an annual sustainability report.",
        "A small museum at the head office shows the history of the firm.",
    ),
    "observatory": (
        "The site was chosen for its dark skies and stable air.",
        "The telescopes are controlled remotely from the university campus.",
        "A meteorological station on the roof records conditions every {n} minutes.",
        "The library holds a large collection of photographic plates.",
        "Observing time is allocated by a committee twice a year.",
        "The road to the summit is closed by snow for part of the winter.",
        "The observatory shares a workshop with the physics department.",
        "Public viewing nights are held on {n} evenings each autumn.",
    ),
    "museum": (
        "The permanent exhibition is arranged chronologically over two floors.",
        "Entry is free for children and students.",
        "The museum shop sells books, prints and replicas of objects from the collection.",
        "Guided tours are offered in several languages during the summer.",
        "The archive can be consulted by researchers by appointment.",
        "A café on the ground floor looks out over the river {river}.",
        "Volunteers help with cataloguing and with events for families.",
        "About {n} per cent of the collection is on display at any time.",
    ),
    "ship": (
        "Her hull is ice-strengthened for winter service in the northern Baltic.",
        "The car deck is reached through a bow visor and a stern ramp.",
        "Passenger facilities include a restaurant, a cafeteria and {n} cabins.",
        "Two controllable-pitch propellers drive the ship.",
        "She is registered in {place} and flies the national flag.",
        "The crew numbers about {n} in the summer season.",
        "Lifeboats and liferafts are carried on both sides of the upper deck.",
        "A bow thruster makes her easy to handle in narrow harbours.",
    ),
}
_GENERIC = (
    "{time}, {short} was the subject of a study commissioned by the {district} regional council.",
    "{time}, {short} received a grant of {n} thousand crowns from the {fund} foundation.",
    "{time}, a delegation from {place} visited {short} to learn from its experience.",
    "{time}, {short} featured in a newspaper series on the heritage of the {district} district.",
    "Local historians have written {n} books about {short} and its surroundings.",
    "The {other} lies about {n} kilometres to the {direction}.",
    "Unlike the {other}, {short} has been in continuous use since it was completed.",
    "Records from {year} describe {short} in some detail, including a plan drawn by {person}.",
    "Photographs in the county archive show {short} as it looked around {year}.",
    "{person}, who wrote a history of the district, called {short} one of its landmarks.",
    "Comparisons are often drawn with the {other}, although the two differ in most respects.",
    "Figures published in {year} put the annual running costs at about {n} million crowns.",
    "The regional plan adopted in {year} treats {short} as part of the wider development of {place}.",
    "An exhibition in {place} in {year} devoted a room to {short}.",
)
_TIMES = ("In {year}", "During the {decade}s", "By {year}", "In the spring of {year}", "In the autumn of {year}")


def _entities(seed: int) -> list[tuple[str, str]]:
    """Every (kind, name) the generator can make, in a seeded order; document i is entity i."""
    places = [p + s for p in _PREFIXES for s in _SUFFIXES]
    out: list[tuple[str, str]] = []
    for index, place in enumerate(places):
        out += [
            ("town", place),
            ("bridge", f"{place} Bridge"),
            ("company", f"{place} {_COMPANY_NOUNS[index % len(_COMPANY_NOUNS)]}"),
            ("observatory", f"{place} Observatory"),
            ("museum", f"{place} Museum of {_MUSEUM_TOPICS[index % len(_MUSEUM_TOPICS)]}"),
            ("ship", f"MS {place}"),
        ]
    random.Random(seed).shuffle(out)
    return out


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


class _Filler:
    """Filler sentences for one document, never repeating a planted answer's year or figure."""

    def __init__(
        self, rng: random.Random, kind: str, name: str, entities: list[tuple[str, str]], banned: str, first_year: int
    ) -> None:
        self.rng = rng
        self.first_year = first_year
        self.kind = kind
        self.name = name
        self.entities = entities
        self.banned = banned
        self.places = [p + s for p in _PREFIXES for s in _SUFFIXES]

    def _year(self) -> int:
        for _ in range(100):
            year = self.rng.randint(self.first_year, 2023)
            if str(year) not in self.banned and str(year // 10 * 10) not in self.banned:
                return year
        return 2023

    def _other(self) -> str:
        while True:
            kind, name = self.rng.choice(self.entities)
            if name != self.name and kind != "town" and kind != "ship":
                return name

    def fill(self, template: str) -> str:
        rng = self.rng
        year = self._year()
        values = {
            "short": _SHORT[self.kind],
            "name": self.name,
            "n": rng.randint(2, 95),
            "year": year,
            "decade": year // 10 * 10,
            "river": rng.choice(_RIVERS),
            "district": rng.choice(_DISTRICTS),
            "fund": rng.choice(_FUNDS),
            "place": rng.choice(self.places),
            "place2": rng.choice(self.places),
            "person": _person(rng),
            "direction": rng.choice(_DIRECTIONS),
        }
        if "{other}" in template:
            values["other"] = self._other()
        if "{time}" in template:
            values["time"] = rng.choice(_TIMES).format(**values)
        text = template.format(**values)
        return text[0].upper() + text[1:]

    def sentence(self) -> str:
        roll = self.rng.random()
        if roll < 0.4:
            event = self.rng.choice(_EVENTS[self.kind])
            return self.fill("{time}, {short} " + event + ".")
        if roll < 0.7:
            return self.fill(self.rng.choice(_DESCRIPTIONS[self.kind]))
        return self.fill(self.rng.choice(_GENERIC))


def make_document(seed: int, index: int, entities: list[tuple[str, str]]) -> tuple[str, str, list[Fact]]:
    """(relative path, Markdown text, planted facts) of document `index`; depends only on the seed and index."""
    kind, name = entities[index]
    rng = random.Random(f"{seed}:{index}")
    path = f"{_FOLDERS[kind]}/{_slug(name)}.md"
    facts = _facts(kind, name, rng)
    banned = " ".join(answer for _, answer, _, _ in facts)
    # Filler events happen after the entity came to be (it opened, was founded or launched).
    start = re.search(r"\b1[5-9]\d\d|20[0-2]\d\b", facts[0][1])
    first_year = min(max(int(start.group()) + 1, 1850), 2015) if start else 1850
    filler = _Filler(rng, kind, name, entities, banned, first_year)
    target_words = rng.randint(300, 1500)
    sections = rng.sample(_SECTIONS[kind], rng.randint(3, len(_SECTIONS[kind])))
    # The intro states a fact or two; the others go into random sections, each inside a paragraph of filler.
    placed: dict[str, list[str]] = {"": []}
    for number, (_, _, sentence, _) in enumerate(facts):
        where = "" if number < 2 and rng.random() < 0.6 else rng.choice(sections)
        placed.setdefault(where, []).append(sentence)
    published = f"{rng.randint(2015, 2024)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    lines = [
        "---",
        f"title: {name}",
        f"date: {published}",
        f"author: {_person(rng)}",
        "---",
        "",
        f"# {name}",
        "",
    ]
    words = 0

    def paragraph(planted: list[str]) -> str:
        nonlocal words
        sentences = [filler.sentence() for _ in range(rng.randint(3, 6))]
        for sentence in planted:
            sentences.insert(rng.randint(0, len(sentences)), sentence)
        text = " ".join(sentences)
        words += len(text.split())
        return text

    district = rng.choice(_DISTRICTS)
    intro = {
        "town": f"{name} is a town in the {district} district, on the river {rng.choice(_RIVERS)}.",
        "company": f"{name} is a manufacturing company based in the {district} district.",
        "ship": f"{name} is a passenger and car ferry operating from ports in the {district} district.",
    }.get(kind, f"The {name} is a {kind} in the {district} district.")
    lines += [intro + " " + paragraph(placed[""]), ""]
    for number, heading in enumerate(sections):
        lines += [f"## {heading}", ""]
        lines += [paragraph(placed.get(heading, [])), ""]
        # Spread the words still wanted over the sections still to come (a paragraph is about 60 words).
        for _ in range(round((target_words - words) / 60 / (len(sections) - number)) - 1):
            lines += [paragraph([]), ""]
    others = sorted({filler._other() for _ in range(rng.randint(2, 4))})
    lines += ["## See also", ""]
    lines += [f"- {other}" for other in others]
    lines.append("")
    text = "\n".join(lines)
    return path, text, [Fact(q, answer, path, name, kind, key) for key, answer, _, q in facts]


def generate_corpus(folder: Path, size: int, seed: int) -> dict[str, Any]:
    """Write `size` documents under `folder`; returns counts and every planted fact."""
    if folder.exists():
        shutil.rmtree(folder)
    entities = _entities(seed)
    if size > len(entities):
        raise SystemExit(f"at most {len(entities)} documents can be generated")
    facts: list[Fact] = []
    words = 0
    for index in range(size):
        path, text, planted = make_document(seed, index, entities)
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        words += len(text.split())
        facts += planted
    return {"documents": size, "words": words, "facts": facts}


def pick_questions(seed: int, count: int, pool: int = 100) -> list[Fact]:
    """`count` questions about the first `pool` documents (so every size is asked the same), one per document."""
    entities = _entities(seed)
    rng = random.Random(f"{seed}:questions")
    chosen = rng.sample(range(pool), min(count, pool))
    questions = []
    for index in chosen:
        _, _, facts = make_document(seed, index, entities)
        questions.append(rng.choice(facts))
    return questions


# -- checking a report -----------------------------------------------------------------------------------------------

_QUOTE = re.compile(r"“([^”]+)”((?:\s*\[\d+\])+)")


def check_report(markdown: str, answer: str, file: str) -> dict[str, Any]:
    """Does the report quote the planted answer with a citation to the file that states it?"""
    from research_assistant.report.citations import parse_locator, unescape_markdown

    body, _, sources_part = markdown.partition("\n## Sources")
    locators: dict[int, str] = {}
    for line in sources_part.splitlines():
        match = re.match(r"^\[(\d+)\]\s", line)
        if match:
            locators[int(match.group(1))] = parse_locator(line) or ""
    quoted = cited_right = False
    wrong_files: set[str] = set()
    for match in _QUOTE.finditer(body):
        if answer not in " ".join(unescape_markdown(match.group(1)).split()):
            continue
        quoted = True
        numbers = [int(n) for n in re.findall(r"\[(\d+)\]", match.group(2))]
        for number in numbers:
            locator = locators.get(number, "")
            if locator.endswith("/" + file):
                cited_right = True
            else:
                wrong_files.add(locator)
    return {"answer_quoted": quoted, "correct": cited_right, "cited_elsewhere": sorted(wrong_files)}


# -- one size, in its own process ------------------------------------------------------------------------------------


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def _percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, -(-int(share * 100) * len(ordered) // 100))
    return ordered[min(rank, len(ordered)) - 1]


def _rss_mb() -> float:
    """Peak resident set size of this process so far (Linux reports ru_maxrss in KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _folder_mb(folder: Path) -> float:
    return round(sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6, 1)


def _profiler(args: argparse.Namespace) -> Any:
    if not args.profile:
        return None
    import cProfile

    return cProfile.Profile()


def _dump(profiler: Any, path: Path) -> None:
    """Save a phase's profile and print its top functions by cumulative time (with --profile only)."""
    if profiler is None:
        return
    import pstats

    profiler.dump_stats(str(path))
    print(f"  profile written to {path}; top functions by cumulative time:", flush=True)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


def _page_chroma_gets(page: int = 20_000) -> None:
    """Work around chromadb 1.5's `get()` failing with "too many SQL variables" when it matches more than 32,766
    records (SQLite's bind-parameter limit; see chroma-core/chroma PR #7687): an unbounded `get` is read in pages.

    Only with `--chroma-paging retry|on`, and only in the benchmark's own process; the repository is unchanged.
    """
    from chromadb.api.models.Collection import Collection

    original = Collection.get
    if getattr(original, "_paged", False):
        return

    def get(self: Any, ids: Any = None, where: Any = None, limit: Any = None, offset: Any = None, **kwargs: Any) -> Any:
        if ids is not None or limit is not None or offset is not None:
            return original(self, ids=ids, where=where, limit=limit, offset=offset, **kwargs)
        merged: Any = None
        start = 0
        while True:
            part = original(self, where=where, limit=page, offset=start, **kwargs)
            if merged is None:
                merged = part
            else:
                for key, value in part.items():
                    if isinstance(value, list) and isinstance(merged.get(key), list):
                        merged[key].extend(value)
            if len(part["ids"]) < page:
                return merged
            start += page

    get._paged = True  # type: ignore[attr-defined]
    Collection.get = get  # type: ignore[method-assign,assignment]


def run_size(args: argparse.Namespace, out: dict[str, Any]) -> None:
    """Measure one size, filling `out` as each phase ends (so a failure keeps what was measured before it)."""
    size_dir = Path(args.workdir) / f"size-{args.size}"
    corpus = size_dir / "corpus"
    db_dir, cache_dir = size_dir / "research_db", size_dir / "cache"
    for folder in (db_dir, cache_dir):
        shutil.rmtree(folder, ignore_errors=True)
    asked = json.loads((size_dir / "questions.json").read_text())
    questions = [Fact(**q) for q in asked["latency"]]
    e2e_questions = [Fact(**q) for q in asked["e2e"]]
    memory: dict[str, float] = {}
    out["peak_rss_mb"] = memory

    def phase(name: str) -> None:
        out["phase"], out["phase_started"] = name, time.perf_counter()

    phase("import")
    started = time.perf_counter()
    from research_assistant.context import Context, Depth
    from research_assistant.runner import run_research
    from research_assistant.search.local import LocalCorpusProvider
    from research_assistant.services import services_for
    from research_assistant.settings import get_settings

    out["import_s"] = round(time.perf_counter() - started, 3)
    out["code"] = _code_state()  # what this process imported, as near as git can tell
    memory["after_import"] = _rss_mb()
    settings = get_settings()
    out["settings"] = {
        "embedding": settings.embedding,
        "chunk_size": settings.chunk_size,
        "chunk_overlap": settings.chunk_overlap,
        "max_seconds": args.max_seconds,
    }
    if args.paged:
        _page_chroma_gets()

    def context(depth: str) -> Context:
        return Context(
            depth=Depth(depth),
            source_types=["local"],
            corpus_dir=corpus,
            db_dir=db_dir,
            cache_dir=cache_dir,
            max_seconds=args.max_seconds,
        )

    # Index: the services a run would use, then the provider's first sync into an empty repository.
    phase("open")
    t = time.perf_counter()
    services = services_for(context("quick"))
    out["open_services_s"] = round(time.perf_counter() - t, 3)
    provider = services.providers[0]
    assert isinstance(provider, LocalCorpusProvider)
    repository = services.repository
    profiler = _profiler(args)
    phase("index")
    t = time.perf_counter()
    try:
        if profiler:  # cProfile sees only its own thread, so the sync runs here instead of in a worker thread
            profiler.enable()
            report = provider._sync()
            profiler.disable()
            notices = [f"{report.indexed} indexed, {report.unchanged} unchanged, {len(report.skipped)} skipped"]
        else:
            notices = [notice.message for notice in asyncio.run(provider.prepare())]
    finally:
        memory["after_index"] = _rss_mb()
        out["chunks"] = repository.chunk_count()
        out["db_mb"] = _folder_mb(db_dir)
        out["cache_mb"] = _folder_mb(cache_dir)
    index_s = time.perf_counter() - t
    _dump(profiler, size_dir / "index.prof")
    out["index_s"] = round(index_s, 3)
    out["index_notice"] = notices[0]
    print(f"  [{args.size}] indexed in {index_s:.1f}s: {notices[0]}; {out['chunks']} chunks", flush=True)

    phase("re-sync")
    resync = []
    for _ in range(args.resyncs):
        t = time.perf_counter()
        asyncio.run(provider.prepare())
        resync.append(time.perf_counter() - t)
    out["resync_s"] = [round(s, 3) for s in resync]
    out["resync_median_s"] = round(statistics.median(resync), 3)
    print(f"  [{args.size}] re-sync median {statistics.median(resync):.2f}s", flush=True)

    # Query latency and retrieval quality, over the same questions at every size.
    phase("queries")
    corpus_id = provider.indexer.corpus_id

    async def searches() -> dict[str, Any]:
        t = time.perf_counter()
        repository.retrieve("warm up the caches", 20, corpus=corpus_id)
        first = time.perf_counter() - t
        retrieve_s, search_s, retrieve_hit, search_hit, search_top = [], [], 0, 0, 0
        per_query: list[dict[str, Any]] = []
        for q in questions:
            t = time.perf_counter()
            passages = await asyncio.to_thread(repository.retrieve, q.question, 20, corpus=corpus_id)
            retrieve_s.append(time.perf_counter() - t)
            t = time.perf_counter()
            results = await provider.search(q.question, 5)
            search_s.append(time.perf_counter() - t)
            info = repository.document_info({p.source_id for p in passages})
            answer_found = any(
                q.answer in " ".join(p.text.split()) and info[p.source_id].locator.endswith("/" + q.file)
                for p in passages
                if p.source_id in info
            )
            rank = next((n for n, r in enumerate(results, 1) if r.locator.endswith("/" + q.file)), None)
            retrieve_hit += answer_found
            search_hit += rank is not None
            search_top += rank == 1
            per_query.append(
                {
                    "question": q.question,
                    "file": q.file,
                    "answer_in_retrieve_top20": answer_found,
                    "file_rank_in_search_top5": rank,
                    "search_top5": [r.locator.rsplit("/", 1)[-1] for r in results],
                }
            )
        n = len(questions)
        return {
            "first_retrieve_ms": _ms(first),
            "retrieve_ms": [_ms(s) for s in retrieve_s],
            "search_ms": [_ms(s) for s in search_s],
            "retrieve_p50_ms": _ms(statistics.median(retrieve_s)),
            "retrieve_p95_ms": _ms(_percentile(retrieve_s, 0.95)),
            "search_p50_ms": _ms(statistics.median(search_s)),
            "search_p95_ms": _ms(_percentile(search_s, 0.95)),
            "retrieve_answer_in_top20": round(retrieve_hit / n, 3),
            "search_file_in_top5": round(search_hit / n, 3),
            "search_file_first": round(search_top / n, 3),
            "per_query": per_query,
        }

    queries = asyncio.run(searches())
    out["queries"] = queries
    memory["after_queries"] = _rss_mb()
    print(
        f"  [{args.size}] retrieve p50 {queries['retrieve_p50_ms']} ms, search p50 {queries['search_p50_ms']} ms",
        flush=True,
    )

    # End to end, after indexing: different questions, each depth; every run re-syncs first, as runs do.
    phase("end-to-end")
    runs: list[dict[str, Any]] = []
    out["runs"] = runs
    profiler = _profiler(args)
    for number, depth in enumerate(args.depths):
        for q in e2e_questions[number * args.e2e_questions : (number + 1) * args.e2e_questions]:
            events: list[dict[str, Any]] = []
            t = time.perf_counter()

            def record(event: Any, t: float = t, events: list[dict[str, Any]] = events) -> None:
                events.append({"t": round(time.perf_counter() - t, 3), "node": event.node, "message": event.message})

            if profiler:
                profiler.enable()
            result = asyncio.run(run_research(q.question, context(depth), record))
            if profiler:
                profiler.disable()
            elapsed = time.perf_counter() - t
            check = check_report(result.get("report_markdown", ""), q.answer, q.file)
            read = sum(1 for s in result.get("sources", {}).values() if s.status == "read")
            runs.append(
                {
                    "depth": depth,
                    "question": q.question,
                    "answer": q.answer,
                    "file": q.file,
                    "seconds": round(elapsed, 3),
                    **check,
                    "evidence": len(result.get("evidence", {})),
                    "sources_read": read,
                    "stop_reason": result.get("stop_reason"),
                    "events": events,
                }
            )
            verdict = "correct" if check["correct"] else ("quoted, wrong file" if check["answer_quoted"] else "missed")
            print(f"  [{args.size}] {depth} {elapsed:.1f}s {verdict}: {q.question}", flush=True)
    memory["after_e2e"] = _rss_mb()
    _dump(profiler, size_dir / "e2e.prof")

    e2e = {}
    for depth in args.depths:
        times = [r["seconds"] for r in runs if r["depth"] == depth]
        e2e[depth] = {"median_s": round(statistics.median(times), 3), "all_s": times}
    out["e2e"] = e2e
    out["accuracy"] = round(sum(r["correct"] for r in runs) / len(runs), 3) if runs else None
    out["phase"] = "done"
    out.pop("phase_started", None)


# -- the driver ------------------------------------------------------------------------------------------------------


def _code_state() -> dict[str, Any]:
    """The commit of the code measured, and which files under research_assistant/ differ from it."""
    root = Path(__file__).resolve().parent.parent

    def git(*command: str) -> str:
        try:
            done = subprocess.run(["git", *command], cwd=root, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    changed = git("status", "--porcelain", "--", "research_assistant")
    return {"commit": git("rev-parse", "HEAD") or None, "changed": [line[3:] for line in changed.splitlines()]}


def _machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_gb": ram_gb,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def _spawn(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, float, float]:
    """Run a command; (exit status, wall seconds, that process's peak RSS in MB from os.wait4)."""
    t = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, time.perf_counter() - t, round(usage.ru_maxrss / 1024, 1)


def _cli_run(size_dir: Path, question: Fact, depth: str) -> dict[str, Any]:
    """The command line, cold, in a fresh process: imports, opening the repository, re-sync and research."""
    env = dict(os.environ)
    env.update(
        RESEARCH_DB_DIR=str(size_dir / "research_db"),
        RESEARCH_CACHE_DIR=str(size_dir / "cache"),
        RESEARCH_MAX_SECONDS="600",
    )
    out = size_dir / f"cli-{depth}.md"
    command = [
        shutil.which("research-assistant") or "research-assistant",
        "run",
        question.question,
        "--corpus",
        str(size_dir / "corpus"),
        "--depth",
        depth,
        "--out",
        str(out),
        "--quiet",
    ]
    status, seconds, rss = _spawn(command, cwd=size_dir)
    check = check_report(out.read_text(encoding="utf-8"), question.answer, question.file) if out.exists() else {}
    return {
        "depth": depth,
        "question": question.question,
        "exit": status,
        "seconds": round(seconds, 3),
        "peak_rss_mb": rss,
        **check,
    }


def _measure_size(args: argparse.Namespace, size: int, size_dir: Path, paged: bool) -> dict[str, Any] | None:
    """Run the worker for one size in a fresh process; its result, or None if the process itself died."""
    (size_dir / "result.json").unlink(missing_ok=True)
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", "--size", str(size)]
    command += ["--workdir", str(args.workdir), "--depths", ",".join(args.depths)]
    command += ["--e2e-questions", str(args.e2e_questions), "--resyncs", str(args.resyncs)]
    command += ["--max-seconds", str(args.max_seconds)]
    command += (["--profile"] if args.profile else []) + (["--paged"] if paged else [])
    status, seconds, rss = _spawn(command, cwd=args.workdir)
    if status != 0 or not (size_dir / "result.json").exists():
        print(f"[{size}] worker died with exit status {status}", file=sys.stderr)
        return None
    result: dict[str, Any] = json.loads((size_dir / "result.json").read_text())
    result.update(worker_s=round(seconds, 1), worker_rss_mb=rss)
    return result


def _fmt_p(p50: float, p95: float) -> str:
    return f"{p50:.0f} / {p95:.0f}"


def markdown_table(results: list[dict[str, Any]], depths: list[str]) -> str:
    head = ["Docs", "Words", "Chunks", "Index (s)", "Re-sync (s)", "retrieve p50/p95 (ms)", "search p50/p95 (ms)"]
    head += [f"E2E {d} (s)" for d in depths]
    head += ["CLI cold quick (s)", "Accuracy", "Hit@5", "Peak RSS (MB)"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    notes: list[str] = []
    for r in results:
        label = f"{r['size']:,}" + (" (paged gets)" if r.get("paged_gets") else "")
        rss = f"{max(r['peak_rss_mb'].values()):,.0f}" if r.get("peak_rss_mb") else "-"
        if r.get("error"):
            notes.append(f"{label}: failed in phase '{r.get('phase')}' after {r.get('failed_after_s')} s: {r['error']}")
            cells = [label, f"{r['words']:,}", f"{r.get('chunks', 0):,}"]
            cells.append(f"failed after {r.get('failed_after_s')}" if r.get("phase") == "index" else "-")
            cells += ["-"] * (len(head) - len(cells) - 1) + [rss]
            rows.append("| " + " | ".join(cells) + " |")
            continue
        q = r["queries"]
        cli = r.get("cli") or []
        right = sum(bool(x["correct"]) for x in r["runs"])
        cells = [
            label,
            f"{r['words']:,}",
            f"{r['chunks']:,}",
            f"{r['index_s']:.1f}",
            f"{r['resync_median_s']:.2f}",
            _fmt_p(q["retrieve_p50_ms"], q["retrieve_p95_ms"]),
            _fmt_p(q["search_p50_ms"], q["search_p95_ms"]),
        ]
        cells += [f"{r['e2e'][d]['median_s']:.1f}" for d in depths]
        cells += [
            f"{cli[0]['seconds']:.1f}" + ("" if cli[0]["exit"] == 0 else f" (exit {cli[0]['exit']})") if cli else "-",
            f"{right}/{len(r['runs'])}",
            f"{q['search_file_in_top5']:.0%}",
            rss,
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows + ([""] + [f"- {note}" for note in notes] if notes else []))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,5000", help="comma-separated corpus sizes (documents)")
    parser.add_argument("--out", type=Path, help="JSON results file (default: WORKDIR/results.json)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/ra-scale"), help="corpora, databases, reports")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--queries", type=int, default=30, help="questions timed for query latency")
    parser.add_argument("--e2e-questions", type=int, default=3, help="end-to-end runs per depth")
    parser.add_argument("--depths", default="quick,standard")
    parser.add_argument("--resyncs", type=int, default=3, help="re-syncs with nothing changed (median reported)")
    parser.add_argument("--cli-runs", type=int, default=1, help="cold command-line runs per size (0: none)")
    parser.add_argument("--max-seconds", type=float, default=600.0, help="wall-clock limit of each run")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="cProfile indexing and the end-to-end runs (slower; the main thread only, so work the runs hand to "
        "threads, such as retrieval, is not in the profile); profiles go to WORKDIR/size-N/*.prof",
    )
    parser.add_argument(
        "--chroma-paging",
        choices=("off", "retry", "on"),
        default="retry",
        help="read unbounded Chroma gets in pages, working around chromadb's 32,766-record limit: never, only to "
        "re-run a size that failed with 'too many SQL variables' (the failure is reported too), or always",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--paged", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.depths = [d.strip() for d in args.depths.split(",") if d.strip()]
    args.workdir = args.workdir.resolve()

    if args.worker:  # one size, in this fresh process
        os.chdir(args.workdir)  # no stray .env is read
        result: dict[str, Any] = {"size": args.size, "paged_gets": args.paged}
        try:
            run_size(args, result)
        except Exception as error:  # recorded, so the table shows where and why this size failed
            traceback.print_exc()
            result["error"] = f"{type(error).__name__}: {error}"
            result["failed_after_s"] = round(time.perf_counter() - result.pop("phase_started", time.perf_counter()), 1)
        (args.workdir / f"size-{args.size}" / "result.json").write_text(json.dumps(result, indent=1))
        return 0

    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    args.workdir.mkdir(parents=True, exist_ok=True)
    out = (args.out or args.workdir / "results.json").resolve()
    pool = min(100, *sizes)
    picked = pick_questions(args.seed, args.queries + args.e2e_questions * len(args.depths), pool)
    questions, e2e_questions = picked[: args.queries], picked[args.queries :]
    machine = _machine()
    code = _code_state()
    print(f"machine: {machine['cpu']}, {machine['cores']} cores, {machine['ram_gb']} GB, Python {machine['python']}")
    results: list[dict[str, Any]] = []
    for size in sizes:
        size_dir = args.workdir / f"size-{size}"
        size_dir.mkdir(parents=True, exist_ok=True)
        t = time.perf_counter()
        generated = generate_corpus(size_dir / "corpus", size, args.seed)
        generate_s = time.perf_counter() - t
        asked = {"latency": [asdict(q) for q in questions], "e2e": [asdict(q) for q in e2e_questions]}
        (size_dir / "questions.json").write_text(json.dumps(asked, indent=1))
        print(f"[{size}] generated {size} documents, {generated['words']:,} words in {generate_s:.1f}s", flush=True)
        attempts = [args.chroma_paging == "on"]
        while attempts:
            paged = attempts.pop()
            measured = _measure_size(args, size, size_dir, paged)
            if measured is None:
                return 1
            measured.update(words=generated["words"], generate_s=round(generate_s, 3))
            failure = measured.get("error")
            if failure:
                print(f"[{size}] FAILED in {measured.get('phase')} after {measured.get('failed_after_s')}s: {failure}")
                if "too many SQL variables" in failure and args.chroma_paging == "retry" and not paged:
                    print(f"[{size}] re-running with Chroma gets read in pages (--chroma-paging)", flush=True)
                    attempts.append(True)
            else:
                measured["cli"] = [
                    _cli_run(size_dir, e2e_questions[i % len(e2e_questions)], "quick") for i in range(args.cli_runs)
                ]
                for cli in measured["cli"]:
                    print(
                        f"[{size}] CLI cold quick run: {cli['seconds']:.1f}s (exit {cli['exit']}), "
                        f"peak RSS {cli['peak_rss_mb']} MB",
                        flush=True,
                    )
            results.append(measured)
        report = {
            "machine": machine,
            "command": " ".join([Path(sys.executable).name, *sys.argv]),
            "seed": args.seed,
            "code_at_start": code,
            "questions": [asdict(q) for q in questions],
            "e2e_questions": [asdict(q) for q in e2e_questions],
            "memory_measure": "peak RSS: resource.getrusage(RUSAGE_SELF).ru_maxrss of a fresh process per size",
            "results": results,
        }
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=1))  # after every size, so a long run keeps what it measured
    print()
    print(markdown_table(results, args.depths))
    print(f"\nresults written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
