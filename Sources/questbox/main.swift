import Foundation
import QuestCLI

exit(Questbox.run(arguments: Array(CommandLine.arguments.dropFirst())))
