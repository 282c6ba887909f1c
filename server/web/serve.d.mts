// Types for server/web/serve.mjs (plain JavaScript so the web process needs no loader).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export declare const PEER_ADDRESS_HEADER: 'x-sluice-peer-address';
export declare function peerAddress(socket: Pick<Socket, 'remoteAddress'>): string;
export declare function limitRequestBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): boolean;
