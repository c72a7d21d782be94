package dev.graphmem.neo4jlocal;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.internal.helpers.HostnamePort;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.logging.log4j.Log4jLogProvider;

/**
 * Runs an embedded Neo4j Community DBMS with the Bolt connector on 127.0.0.1, for graphmem's
 * local development and CI. Not for production (auth is disabled).
 *
 * <pre>
 *   java ... dev.graphmem.neo4jlocal.LocalNeo4j --data DIR [--port N|0|auto] [--state FILE]
 *                                               [--conf FILE] [--host 127.0.0.1]
 * </pre>
 *
 * <p>Environment fallbacks: NEO4J_LOCAL_DATA, NEO4J_LOCAL_PORT, NEO4J_LOCAL_STATE, NEO4J_LOCAL_CONF,
 * NEO4J_LOCAL_HOST. Port 0 or "auto" binds a free port (routing tables then advertise port 0: the
 * launcher picks a free port itself and passes it); the bound port is written to the state file
 * (key=value lines: pid, port, uri, data, neo4j_version, java_version) once the default database
 * answers Cypher. The process then blocks until SIGTERM/SIGINT; a shutdown hook shuts the DBMS down
 * cleanly and removes the state file.
 */
public final class LocalNeo4j {

    private LocalNeo4j() {}

    /** Defaults for a small, quiet, offline, test-oriented server. Overridable with --conf. */
    private static Map<String, String> defaultSettings() {
        Map<String, String> s = new LinkedHashMap<>();
        // Unknown keys (e.g. a setting that does not exist in an older/newer version) only warn.
        s.put("server.config.strict_validation.enabled", "false");
        s.put("dbms.security.auth_enabled", "false");
        s.put("server.memory.pagecache.size", "256m");
        s.put("db.memory.transaction.total.max", "512m");
        // Keep the disk footprint small: no 256 MiB pre-allocated tx logs, keep only 2 files.
        s.put("db.tx_log.preallocate", "false");
        s.put("db.tx_log.rotation.size", "32m");
        s.put("db.tx_log.rotation.retention_policy", "2 files");
        // Never talk to anything but 127.0.0.1: no usage reports, no fleet/cloud discovery.
        s.put("dbms.usage_report.enabled", "false");
        s.put("server.fleet_discovery.enabled", "false");
        s.put("dbms.fleet_manager.enabled", "false");
        // HTTP(S) is not needed (and not on the classpath); only Bolt.
        s.put("server.http.enabled", "false");
        s.put("server.https.enabled", "false");
        s.put("db.logs.query.enabled", "OFF");
        s.put("dbms.transaction.timeout", "0s");
        // Internal knobs (names of 2025.x/2026.x; ignored with a warning where unknown): Netty's
        // graceful-shutdown quiet period otherwise adds ~10 s to every stop.
        s.put("internal.dbms.bolt.netty_server_shutdown_quiet_period_duration", "100ms");
        s.put("internal.dbms.bolt.netty_server_shutdown_timeout", "5s");
        return s;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = parseArgs(args);
        Path data = Path.of(opt(opts, "data", "NEO4J_LOCAL_DATA", "neo4j-local-data")).toAbsolutePath();
        String host = opt(opts, "host", "NEO4J_LOCAL_HOST", "127.0.0.1");
        String portArg = opt(opts, "port", "NEO4J_LOCAL_PORT", "auto");
        int port = "auto".equalsIgnoreCase(portArg) ? 0 : Integer.parseInt(portArg);
        String stateArg = opt(opts, "state", "NEO4J_LOCAL_STATE", "");
        Path state = stateArg.isEmpty() ? null : Path.of(stateArg).toAbsolutePath();
        String confArg = opt(opts, "conf", "NEO4J_LOCAL_CONF", "");

        Files.createDirectories(data);
        if (state != null) {
            Files.deleteIfExists(state);
        }

        Map<String, String> settings = defaultSettings();
        if (!confArg.isEmpty()) {
            Properties user = new Properties();
            try (Reader r = Files.newBufferedReader(Path.of(confArg), StandardCharsets.UTF_8)) {
                user.load(r);
            }
            user.forEach((k, v) -> settings.put(k.toString().trim(), v.toString().trim()));
        }
        Path confDir = Files.createDirectories(data.resolve("conf"));
        Path conf = confDir.resolve("neo4j-local.conf");
        StringBuilder sb = new StringBuilder("# generated by graphmem neo4j-local on every start\n");
        settings.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        Files.writeString(conf, sb.toString(), StandardCharsets.UTF_8);

        log("starting Neo4j: home=" + data + " bolt=" + host + ":" + (port == 0 ? "auto" : port)
                + " java=" + Runtime.version());
        long t0 = System.nanoTime();

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(data)
                .loadPropertiesFromFile(conf)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(host, port))
                // What routing tables (neo4j:// URIs) hand out: this server's real port, not 7687.
                .setConfig(BoltConnector.advertised_address, new SocketAddress(host, port))
                .setUserLogProvider(new Log4jLogProvider(System.out))
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            log("shutdown requested; stopping Neo4j");
            try {
                if (state != null) {
                    Files.deleteIfExists(state);
                }
            } catch (IOException e) {
                log("could not remove state file: " + e);
            }
            try {
                dbms.shutdown();
                log("Neo4j stopped cleanly");
            } catch (Throwable t) {
                log("error during shutdown: " + t);
            } finally {
                stopped.countDown();
            }
        }, "neo4j-local-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);

        try {
            String dbName = dbms.listDatabases().contains(GraphDatabaseSettings.DEFAULT_DATABASE_NAME)
                    ? GraphDatabaseSettings.DEFAULT_DATABASE_NAME
                    : dbms.listDatabases().stream().filter(n -> !n.equals("system")).findFirst().orElse("neo4j");
            GraphDatabaseService db = dbms.database(dbName);
            if (!db.isAvailable(TimeUnit.SECONDS.toMillis(120))) {
                throw new IllegalStateException("database '" + dbName + "' did not become available");
            }
            String version = db.executeTransactionally(
                    "CALL dbms.components() YIELD versions RETURN versions[0] AS v", Map.of(),
                    r -> String.valueOf(r.next().get("v")));
            ConnectorPortRegister ports = ((GraphDatabaseAPI) db).getDependencyResolver()
                    .resolveDependency(ConnectorPortRegister.class);
            HostnamePort bolt = ports.getLocalAddress(ConnectorType.BOLT);
            if (bolt == null) {
                throw new IllegalStateException("Bolt connector did not register a local address");
            }
            int boundPort = bolt.getPort();
            String uri = "bolt://" + host + ":" + boundPort;
            if (state != null) {
                writeState(state, Map.of(
                        "pid", Long.toString(ProcessHandle.current().pid()),
                        "port", Integer.toString(boundPort),
                        "uri", uri,
                        "data", data.toString(),
                        "database", dbName,
                        "neo4j_version", version,
                        "java_version", Runtime.version().toString(),
                        "java_home", System.getProperty("java.home")));
            }
            log(String.format("READY Neo4j %s on %s (database '%s', auth disabled) in %.1f s",
                    version, uri, dbName, (System.nanoTime() - t0) / 1e9));
        } catch (Throwable t) {
            log("startup failed: " + t);
            t.printStackTrace(System.out);
            System.exit(1); // runs the shutdown hook
        }

        stopped.await(); // only released by the shutdown hook, i.e. on SIGTERM/SIGINT
    }

    private static void writeState(Path state, Map<String, String> values) throws IOException {
        Files.createDirectories(state.getParent());
        StringBuilder sb = new StringBuilder();
        new java.util.TreeMap<>(values).forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        Path tmp = state.resolveSibling(state.getFileName() + ".tmp");
        Files.writeString(tmp, sb.toString(), StandardCharsets.UTF_8);
        Files.move(tmp, state, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static Map<String, String> parseArgs(String[] args) {
        Map<String, String> opts = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                usage("unexpected argument: " + a);
            }
            String key = a.substring(2);
            String value;
            int eq = key.indexOf('=');
            if (eq >= 0) {
                value = key.substring(eq + 1);
                key = key.substring(0, eq);
            } else {
                if (i + 1 >= args.length) {
                    usage("missing value for " + a);
                }
                value = args[++i];
            }
            switch (key) {
                case "data", "port", "state", "conf", "host" -> opts.put(key, value);
                default -> usage("unknown option: " + a);
            }
        }
        return opts;
    }

    private static String opt(Map<String, String> opts, String key, String env, String dflt) {
        String v = opts.get(key);
        if (v == null || v.isEmpty()) {
            v = System.getenv(env);
        }
        return v == null || v.isEmpty() ? dflt : v;
    }

    private static void usage(String msg) {
        System.err.println("LocalNeo4j: " + msg);
        System.err.println("usage: LocalNeo4j --data DIR [--port N|0|auto] [--state FILE] [--conf FILE]"
                + " [--host 127.0.0.1]");
        System.exit(2);
    }

    private static void log(String msg) {
        System.out.println("[neo4j-local] " + java.time.Instant.now() + " " + msg);
        System.out.flush();
    }
}
