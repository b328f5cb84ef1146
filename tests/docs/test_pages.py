"""How the manual's blocks and directives are read (``tests/docs/pages.py``), on a small page."""

from __future__ import annotations

from pathlib import Path

from tests.docs.pages import blocks, chains

PAGE = """\
# A page

<!-- not run: needs a server -->
```sh
serve --forever
```

<!-- file: mine.py -->
```python
X = 1
```

<!-- continues -->
<!-- exits 1 -->
```sh
false
```

  <!-- exits 2 -->
  ```console
  $ tool --bad
  usage: tool
  ```

<!-- continue -->
```text
not a command
```

<!-- exits 3 -->

```sh
echo the blank line above detaches the comment
```
"""


def test_directives_and_chains_are_read_from_the_comments_right_above_a_block(
        tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    found = blocks(page)
    assert [(b.line, b.lang) for b in found] == [
        (4, "sh"), (9, "python"), (15, "sh"), (20, "console"), (26, "text"), (32, "sh")]
    serve, mine, false, console, text, echo = found
    assert serve.not_run == "needs a server" and not serve.runnable
    assert mine.file == "mine.py" and mine.exits == 0 and not mine.continues
    assert false.continues and false.exits == 1
    assert console.exits == 2 and console.text == "$ tool --bad\nusage: tool\n"
    assert text.errors and "unknown directive" in text.errors[0]
    assert echo.exits == 0, "a comment separated by a blank line is no directive"
    assert [[b.line for b in chain] for chain in chains(page)] == [[9, 15], [20], [32]]
