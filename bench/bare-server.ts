import Fastify from 'fastify';
import { readFileSync } from 'node:fs';

/**
 * The baseline of the server benchmark: a bare Fastify route that returns a fixed JSON body of the
 * same size as the measured pdsnap page, with no auth, limits, validation, logging or snapshot lookup.
 */
const [bodyFile] = process.argv.slice(2);
if (!bodyFile) throw new Error('usage: bare-server <body-file>');
const body = readFileSync(bodyFile);
const app = Fastify({ logger: false });
app.get('/bare', async (_request, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(body));
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stderr.write(`listening on ${address}\n`);
