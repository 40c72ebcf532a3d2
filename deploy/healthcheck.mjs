// The image's HEALTHCHECK: GET /healthz on the ops port, with plain node (no curl in the image).
// Exit 0 when it answers 200, 1 otherwise, with the reason on stderr (docker inspect shows it).
const port = process.env.SWITCHYARD_METRICS_PORT || "9464";
if (port === "0") {
  process.stderr.write(
    "SWITCHYARD_METRICS_PORT=0 turns /healthz off, so there is nothing to check. Set it to a port, or run the container with --no-healthcheck.\n",
  );
  process.exit(1);
}
try {
  const response = await fetch(`http://127.0.0.1:${port}/healthz`, {
    signal: AbortSignal.timeout(4000),
  });
  if (response.status !== 200) {
    process.stderr.write(`/healthz answered ${response.status}\n`);
    process.exit(1);
  }
} catch (error) {
  process.stderr.write(`/healthz on port ${port} did not answer: ${error.message}\n`);
  process.exit(1);
}
