/** The handshake and server-cost lab: link emulation, measurements, reports. */
package io.pqssh.lab;
