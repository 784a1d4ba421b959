/**
 * The page the relay serves: the Stately viewer in a frame, fed with what the relay's
 * WebSocket delivers. It connects back to the host it was loaded from, so it works whatever
 * address the relay listens on.
 */
export function viewerPage({ viewerUrl }: { readonly viewerUrl: string }): string {
  return `<!DOCTYPE html>
<html>
<head>
  <meta charset="utf-8">
  <title>loopkeeper: Stately inspector</title>
  <style>html, body, iframe { margin: 0; width: 100%; height: 100%; border: 0; }</style>
</head>
<body>
  <iframe id="viewer" src="${viewerUrl}"></iframe>
  <script>
    const viewer = document.getElementById('viewer');
    const waiting = [];
    let ready = false;
    // The viewer says when it listens; events that arrive before are held until then.
    window.addEventListener('message', (message) => {
      if (message.data && message.data.type === '@statelyai.connected') {
        ready = true;
        for (const event of waiting.splice(0)) viewer.contentWindow.postMessage(event, '*');
      }
    });
    const socket = new WebSocket('ws://' + location.host);
    socket.onmessage = (message) => {
      const event = JSON.parse(message.data);
      if (ready) viewer.contentWindow.postMessage(event, '*');
      else waiting.push(event);
    };
  </script>
</body>
</html>`;
}
