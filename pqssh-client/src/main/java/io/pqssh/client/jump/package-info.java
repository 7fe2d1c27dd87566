/**
 * ProxyJump without a listening socket: the next hop's SSH transport runs inside a {@code direct-tcpip} channel of
 * the previous hop's session, as OpenSSH's {@code ssh -W} over stdio does. MINA is extended through its transport
 * interfaces ({@link org.apache.sshd.common.io.IoServiceFactoryFactory}, {@link org.apache.sshd.common.io.IoConnector},
 * {@link org.apache.sshd.common.io.IoSession}): MINA's client builds its session on a {@link ChannelIoSession} exactly
 * as it would on a TCP connection (see {@link io.pqssh.client.transport.PipeIoSession}).
 */
package io.pqssh.client.jump;
