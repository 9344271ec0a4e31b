// Runs dynalite in its own process (so the gateway and the database use both cores) and reports the
// port it listens on to the parent over IPC. It exits with its parent.
import dynalite from 'dynalite';

const server = dynalite({
  path: process.env.DYNALITE_PATH || undefined,
  createTableMs: 0,
  deleteTableMs: 0,
  updateTableMs: 0,
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('disconnect', () => server.close(() => process.exit(0)));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
