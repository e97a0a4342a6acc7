import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * AWS's DynamoDB Local, reachable from this machine only. Its main class (ServerRunner) builds a
 * Jetty server that listens on every interface, with no option to change that: this launcher
 * builds the same server with ServerRunner's own parser, binds its connector to 127.0.0.1, and
 * starts it, with no telemetry. It ends when its standard input closes, so DynamoDB Local never
 * outlives the process that started it, even one killed with SIGKILL. No build step: compiled
 * once into node_modules/.cache by tools/local/dynamodb-local.ts, or run as a single source file
 * (`java -cp DynamoDBLocal.jar LoopbackDynamoDbLocal.java -port N ...`) where it cannot be.
 */
public class LoopbackDynamoDbLocal {
  static final String LOOPBACK = "127.0.0.1";

  public static void main(String[] args) throws Exception {
    // The cleanup first: a parent already gone when this starts ends it at once, scratch and all.
    deleteScratchOnExit();
    endWhenStdinCloses();
    DynamoDBProxyServer proxy;
    try {
      proxy = ServerRunner.createServerFromCommandLineArgs(args);
    } catch (Exception error) {
      System.err.println("Invalid arguments for DynamoDB Local: " + error.getMessage());
      System.exit(2);
      return;
    }
    Server jetty;
    try {
      Field field = DynamoDBProxyServer.class.getDeclaredField("server");
      field.setAccessible(true);
      jetty = (Server) field.get(proxy);
    } catch (ReflectiveOperationException | ClassCastException error) {
      // A DynamoDB Local built differently: refuse to start rather than listen on every interface.
      System.err.println("This DynamoDB Local cannot be bound to " + LOOPBACK + " (" + error + "): not started.");
      System.exit(3);
      return;
    }
    for (Connector connector : jetty.getConnectors()) {
      if (!(connector instanceof ServerConnector)) {
        System.err.println("Unexpected connector " + connector + ": not started.");
        System.exit(3);
      }
      ((ServerConnector) connector).setHost(LOOPBACK);
    }
    proxy.start();
  }

  /** DynamoDB Local copies its SQLite library to the tmpdir (`-Dpetstore.scratch`) and never deletes it. */
  private static void deleteScratchOnExit() {
    String scratch = System.getProperty("petstore.scratch");
    if (scratch == null) return;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      File directory = new File(scratch);
      File[] files = directory.listFiles();
      if (files != null) for (File file : files) file.delete();
      directory.delete();
    }, "scratch-cleanup"));
  }

  private static void endWhenStdinCloses() {
    Thread watchdog = new Thread(() -> {
      try {
        while (System.in.read() != -1) {
          // Nothing is ever sent; reading only waits for the end.
        }
      } catch (IOException closed) {
        // Closed as well.
      }
      System.exit(0);
    }, "parent-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }
}
