#!/usr/bin/python3
"""Plays the user's part around timbre's secret stores in tests (run with /usr/bin/python3, which has
python3-dbus). Talks to the Secret Service on $DBUS_SESSION_BUS_ADDRESS.

  create LABEL PASSWORD    creates a collection with that label and master password (gnome-keyring's
                           internal interface, no prompt); prints its object path; reuses an existing one
  unlock LABEL PASSWORD    unlocks it with its master password (no prompt)
  lock LABEL               locks it
  locked LABEL             prints true or false
  remove LABEL             deletes the collection (missing = fine)
  items LABEL              prints one JSON line per item: {"label", "attributes", "locked"}
  fake-bus MODE            starts a private dbus-daemon without service files and prints its address;
                           MODE "hung": also owns org.freedesktop.secrets and never answers a call;
                           MODE "empty": nobody owns the name. Runs until killed.
"""
import json, os, signal, subprocess, sys, tempfile, time

import dbus

SECRETS = "org.freedesktop.secrets"
SERVICE_PATH = "/org/freedesktop/secrets"
SERVICE_IFACE = "org.freedesktop.Secret.Service"
COLLECTION_IFACE = "org.freedesktop.Secret.Collection"
ITEM_IFACE = "org.freedesktop.Secret.Item"
INTERNAL_IFACE = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"
PROPS = "org.freedesktop.DBus.Properties"


def service(bus):
    return bus.get_object(SECRETS, SERVICE_PATH)


def find(bus, label):
    svc = service(bus)
    for path in svc.Get(SERVICE_IFACE, "Collections", dbus_interface=PROPS):
        obj = bus.get_object(SECRETS, path)
        if str(obj.Get(COLLECTION_IFACE, "Label", dbus_interface=PROPS)) == label:
            return path
    return None


def master(bus, password):
    _, session = service(bus).OpenSession("plain", dbus.String("", variant_level=1), dbus_interface=SERVICE_IFACE)
    return dbus.Struct((session, dbus.ByteArray(b""), dbus.ByteArray(password.encode()), "text/plain"), signature="oayays")


def main(argv):
    command = argv[1]
    if command == "fake-bus":
        return fake_bus(argv[2])
    bus = dbus.SessionBus()
    label = argv[2]
    if command == "create":
        path = find(bus, label)
        if path is None:
            props = dbus.Dictionary({COLLECTION_IFACE + ".Label": dbus.String(label)}, signature="sv")
            path = service(bus).CreateWithMasterPassword(props, master(bus, argv[3]), dbus_interface=INTERNAL_IFACE)
        print(path)
    elif command == "unlock":
        service(bus).UnlockWithMasterPassword(require(bus, label), master(bus, argv[3]), dbus_interface=INTERNAL_IFACE)
    elif command == "lock":
        service(bus).Lock([require(bus, label)], dbus_interface=SERVICE_IFACE)
    elif command == "locked":
        obj = bus.get_object(SECRETS, require(bus, label))
        print("true" if obj.Get(COLLECTION_IFACE, "Locked", dbus_interface=PROPS) else "false")
    elif command == "remove":
        path = find(bus, label)
        if path is not None:
            bus.get_object(SECRETS, path).Delete(dbus_interface=COLLECTION_IFACE)
    elif command == "items":
        obj = bus.get_object(SECRETS, require(bus, label))
        for item_path in obj.Get(COLLECTION_IFACE, "Items", dbus_interface=PROPS):
            item = bus.get_object(SECRETS, item_path)
            props = item.GetAll(ITEM_IFACE, dbus_interface=PROPS)
            print(json.dumps({"label": str(props["Label"]),
                              "attributes": {str(k): str(v) for k, v in props["Attributes"].items()},
                              "locked": bool(props["Locked"])}))
    else:
        print("unknown command " + command, file=sys.stderr)
        return 2
    return 0


def require(bus, label):
    path = find(bus, label)
    if path is None:
        print("no collection labelled " + label, file=sys.stderr)
        sys.exit(1)
    return path


def fake_bus(mode):
    folder = tempfile.mkdtemp(prefix="timbre-fake-bus-")
    config = os.path.join(folder, "bus.conf")
    with open(config, "w") as f:
        f.write("""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=%s/bus</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
""" % folder)
    daemon = subprocess.Popen(["dbus-daemon", "--config-file=" + config, "--nofork", "--print-address"],
                              stdout=subprocess.PIPE, text=True)
    address = daemon.stdout.readline().strip()

    def stop(*_):
        daemon.terminate()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if mode == "hung":
        bus = dbus.bus.BusConnection(address)
        # No main loop runs: calls to the name queue up and are never answered.
        bus.request_name(SECRETS)
    print(address, flush=True)
    while daemon.poll() is None:
        # Also stop when the test process that started us goes away (stdin closes).
        time.sleep(0.2)
        if os.getppid() == 1:
            stop()
    return 0


if __name__ == "__main__":
    # Started from Swift's task pool, this process (and the bus daemons it starts) would inherit
    # blocked SIGTERM/SIGINT: terminate() would not end them.
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    sys.exit(main(sys.argv))
