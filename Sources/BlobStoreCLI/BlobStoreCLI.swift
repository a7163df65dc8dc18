public enum BlobStoreCLI {
    public static func main() {}
}
