"""vtscreen - the text screen that OVMF's serial console draws (its VT100 terminal: ECMA-48 cursor moves,
erases and colours, characters in code page 437), kept as a grid of characters, so that a test can read what
a person sees on the screen: shim's boxes and MokManager's menus, whichever way they are redrawn."""
import re

ROWS, COLS = 60, 200        # larger than any text mode OVMF offers (its largest here is 100x31)
CSI = re.compile(rb"\x1b\[([0-9;=?]*)([A-Za-z])")


class Screen:
    """The grid, fed with the bytes the serial port carries; cursor-addressed as the terminal is."""

    def __init__(self):
        self.grid = [[" "] * COLS for _ in range(ROWS)]
        self.row = self.col = 0
        self.pending = b""  # an escape sequence cut by a chunk boundary

    def _put(self, ch):
        if ch == "\r":
            self.col = 0
        elif ch == "\n":
            self.row = min(self.row + 1, ROWS - 1)
        elif ch == "\b":
            self.col = max(self.col - 1, 0)
        elif ch >= " ":
            if self.col < COLS:
                self.grid[self.row][self.col] = ch
            self.col += 1

    def _clear(self, r0, c0, r1, c1):
        """Blank from (r0, c0) up to, not including, (r1, c1) in reading order."""
        for r in range(r0, r1 + 1):
            for c in range(c0 if r == r0 else 0, c1 if r == r1 else COLS):
                self.grid[r][c] = " "

    def _csi(self, params, final):
        nums = [int(p) if p.isdigit() else 0 for p in params.lstrip("=?").split(";")] if params else []
        if final in "Hf":
            self.row = min(max((nums[0] if nums else 1) - 1, 0), ROWS - 1)
            self.col = min(max((nums[1] if len(nums) > 1 else 1) - 1, 0), COLS - 1)
        elif final == "J":
            if nums and nums[0] == 2:
                self._clear(0, 0, ROWS - 1, COLS)
            else:
                self._clear(self.row, self.col, ROWS - 1, COLS)
        elif final == "K":
            self._clear(self.row, self.col, self.row, COLS)
        elif final in "ABCD":
            n = max(nums[0] if nums else 1, 1)
            if final == "A":
                self.row = max(self.row - n, 0)
            elif final == "B":
                self.row = min(self.row + n, ROWS - 1)
            elif final == "C":
                self.col = min(self.col + n, COLS - 1)
            else:
                self.col = max(self.col - n, 0)
        # m (colours), h and l (modes): nothing a reader of the text needs

    def feed(self, data):
        data = self.pending + data
        self.pending = b""
        pos = 0
        while pos < len(data):
            esc = data.find(b"\x1b", pos)
            text = data[pos:] if esc < 0 else data[pos:esc]
            for ch in text.decode("cp437"):
                self._put(ch)
            if esc < 0:
                break
            m = CSI.match(data, esc)
            if m:
                self._csi(m.group(1).decode("ascii"), m.group(2).decode("ascii"))
                pos = m.end()
            elif len(data) - esc < 16 and not re.search(rb"[A-Za-z]", data[esc + 1:]):
                self.pending = data[esc:]  # the rest of it comes with the next chunk
                break
            else:
                pos = esc + 1  # a lone ESC: skip it

    def lines(self):
        """The screen's rows, trailing blanks cut, trailing empty rows dropped."""
        out = ["".join(r).rstrip() for r in self.grid]
        while out and not out[-1]:
            out.pop()
        return out

    def text(self):
        return "\n".join(self.lines())

    def find(self, needle):
        """(row, col) of the first occurrence of needle on the screen, or None."""
        for r, line in enumerate(self.lines()):
            c = line.find(needle)
            if c >= 0:
                return r, c
        return None

    def menu(self, needle):
        """The items of the menu box holding needle, top to bottom: the run of rows above and below it whose
        text starts in the same column, between the box's side bars."""
        at = self.find(needle)
        if not at:
            return []
        lines = self.lines()
        r, c = at
        bar = lines[r].rfind("\u2502", 0, c)  # the box's left side
        if bar < 0:
            return [needle]

        def item(row):
            line = lines[row] if 0 <= row < len(lines) else ""
            if len(line) <= bar or line[bar] != "\u2502":
                return None
            end = line.find("\u2502", bar + 1)
            return line[bar + 1:end if end > 0 else None].strip()

        top = r
        while item(top - 1):
            top -= 1
        out, row = [], top
        while item(row):
            out.append(item(row))
            row += 1
        return out
