# A pseudo-terminal standing in for a USB serial port in tests: prints the slave path,
# then relays stdin -> master (bytes the "device" sends) and master -> stdout (bytes the
# host wrote). Exits when stdin closes.
import os, select, tty

master, slave = os.openpty()
tty.setraw(slave)
os.write(1, (os.ttyname(slave) + "\n").encode())
while True:
    ready, _, _ = select.select([master, 0], [], [])
    if 0 in ready:
        data = os.read(0, 4096)
        if not data:
            break
        os.write(master, data)
    if master in ready:
        try:
            data = os.read(master, 4096)
        except OSError:
            continue
        os.write(1, data)
