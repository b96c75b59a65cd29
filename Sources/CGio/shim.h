#ifndef TIMBRE_CGIO_SHIM_H
#define TIMBRE_CGIO_SHIM_H
// GIO's GDBus for the MPRIS bridge. Typed wrappers for what Swift cannot import: the
// G_VARIANT_TYPE casts and a vtable of C callbacks for g_dbus_connection_register_object.
#include <gio/gio.h>

static inline const GVariantType *tgio_variant_type(const char *type) { return G_VARIANT_TYPE(type); }

typedef void (*tgio_method_call_fn)(GDBusConnection *connection, const gchar *sender, const gchar *object_path,
                                    const gchar *interface_name, const gchar *method_name, GVariant *parameters,
                                    GDBusMethodInvocation *invocation, gpointer user_data);
typedef GVariant *(*tgio_get_property_fn)(GDBusConnection *connection, const gchar *sender, const gchar *object_path,
                                          const gchar *interface_name, const gchar *property_name, GError **error,
                                          gpointer user_data);

// Registers an object whose methods and property reads go to the two callbacks. set_property is
// left NULL on purpose: GDBus then hands org.freedesktop.DBus.Properties.Set to the method
// callback, which can answer it later (a setter that awaits the player). GDBus copies the vtable
// (gdbusconnection.c: _g_dbus_interface_vtable_copy), so a stack one will do.
static inline guint tgio_register_object(GDBusConnection *connection, const gchar *path, GDBusInterfaceInfo *info,
                                         tgio_method_call_fn method_call, tgio_get_property_fn get_property,
                                         gpointer user_data, GError **error) {
    GDBusInterfaceVTable vtable = {0};
    vtable.method_call = method_call;
    vtable.get_property = get_property;
    vtable.set_property = NULL;
    return g_dbus_connection_register_object(connection, path, info, &vtable, user_data, NULL, error);
}

// The GError's text (or a fallback), for Swift; frees the error.
static inline gchar *tgio_error_take_message(GError *error) {
    gchar *message = g_strdup(error != NULL && error->message != NULL ? error->message : "unknown GLib error");
    if (error != NULL) g_error_free(error);
    return message;
}

#endif
