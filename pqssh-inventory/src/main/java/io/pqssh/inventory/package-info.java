/** Migration inventory: which servers negotiate classical key exchange, which classical keys remain. */
package io.pqssh.inventory;
