// Half-written Markdown, as a reply streams in, closed so that it renders as it will when complete:
// `**bol` shows bold rather than two stars, an open `code span` shows as code, a link whose URL is
// still arriving shows its text. Only the text after the last fenced code block is touched (inside an
// unclosed fence everything is code until it closes, which the lexer already renders right).

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The part of `text` outside fenced code, from its start offset; null while a fence is open. */
function tailOutsideCode(text: string): number | null {
  let open: string | null = null;
  let offset = 0;
  let tail = 0;
  for (const line of text.split('\n')) {
    const fence = FENCE.exec(line);
    if (fence) {
      if (open === null) open = fence[1];
      else if (fence[1][0] === open[0] && fence[1].length >= open.length && !line.trim().slice(fence[1].length)) {
        open = null;
        tail = offset + line.length + 1;
      }
    }
    offset += line.length + 1;
  }
  return open === null ? tail : null;
}

function count(text: string, marker: RegExp): number {
  return (text.match(marker) ?? []).length;
}

export function completePartial(text: string): string {
  const start = tailOutsideCode(text);
  if (start === null) return text;
  // The paragraph being written: earlier ones are complete as they are.
  const paraStart = Math.max(start, text.lastIndexOf('\n\n') + 1);
  let head = text.slice(0, paraStart);
  let para = text.slice(paraStart);
  if (count(para, /`/g) % 2 === 1) para += '`'; // an open code span: code to the end
  else {
    // A link or image whose target is still arriving: show its text until it is whole.
    para = para.replace(/!?\[([^\]\n]*)\]\([^)\s]*$/, '$1').replace(/!?\[([^\]\n]*)$/, '$1');
  }
  const outside = para.replace(/`[^`\n]*`/g, '');
  if (count(outside, /\*\*/g) % 2 === 1) para = para.replace(/\s+$/, '') + '**';
  else if (count(outside, /(^|[^*])\*(?![\s*])/g) % 2 === 1 && !/^\s*\*\s/m.test(para)) {
    para = para.replace(/\s+$/, '') + '*';
  }
  if (count(outside, /~~/g) % 2 === 1) para = para.replace(/\s+$/, '') + '~~';
  // A lone `-` or `1.` just started: not yet a list item, nor a setext heading underline.
  para = para.replace(/\n[-*+]\s*$/, '\n').replace(/\n\d+[.)]?\s*$/, '\n');
  if (/^\s*[-*+]\s*$/.test(para) && para.length < 4) para = '';
  head = head + para;
  return head;
}
