/**
 * SSH transports without a socket of their own: MINA's client builds its session on a
 * {@link io.pqssh.client.transport.PipeIoSession} (a proxy command's pipes, a channel of the previous jump host) as it
 * would on a TCP connection, through the connector of a {@link io.pqssh.client.transport.PipeTransport}.
 */
package io.pqssh.client.transport;
