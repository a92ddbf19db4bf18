/**
 * Reads one password line from standard input: on a terminal after a prompt (on stderr), without
 * echo; otherwise the first line piped in (`printf '%s\n' "$PW" | svc users passwd alice`).
 */
export async function readPassword(prompt: string, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WritableStream = process.stderr): Promise<string> {
  if (input.isTTY) return readHidden(prompt, input, output);
  let text = '';
  for await (const chunk of input) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  const line = text.split(/\r?\n/)[0] ?? '';
  if (!line) throw new Error('no password on standard input (pipe one line, or run on a terminal to be prompted)');
  return line;
}

function readHidden(prompt: string, input: NodeJS.ReadStream, output: NodeJS.WritableStream): Promise<string> {
  output.write(prompt);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let line = '';
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      output.write('\n');
      if (error) reject(error);
      else resolve(line);
    };
    const onData = (chars: string) => {
      for (const c of chars) {
        if (c === '\r' || c === '\n') return done(line ? undefined : new Error('an empty password'));
        if (c === '\u0003' || c === '\u0004') return done(new Error('cancelled'));
        if (c === '\u007f' || c === '\b') line = line.slice(0, -1);
        else line += c;
      }
    };
    input.on('data', onData);
  });
}
